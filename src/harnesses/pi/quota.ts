import * as z from "zod";
import type { QuotaWindow } from "../../core/foundation/events.js";
import { keptSessionScanner, type SessionScanner } from "../shared/session-scanner.js";
import type { QuotaReading, QuotaSource, QuotaSourceContext } from "../../core/foundation/quota-types.js";
import {
  addToHour,
  decodeHours,
  encodeHours,
  HOUR_MS,
  hourTuple,
  readBlockEstimate,
  type Hour,
} from "../shared/usage-blocks.js";
import { parsePiLimitText } from "./limit-text.js";
import { piSessionRoots } from "./session-files.js";

/**
 * What Pi 0.73.1 writes to `<home>/sessions/--<cwd>--/<time>_<id>.jsonl` that tells about quota
 * (test/fixtures/pi/0.73.1/transcripts): one `{"type":"message", id, timestamp, message}` line
 * per assistant reply, with `usage.{input,output,cacheRead,cacheWrite,totalTokens,cost}` and a
 * `stopReason`. A failed request is a reply with `stopReason:"error"` and the provider's text in
 * `errorMessage` ("429 You have hit your usage limit. …"); each retried 429 is its own reply.
 * No provider window, limit or used % is ever written (pi-ai reads no rate-limit headers; its
 * ChatGPT provider only words a 429's `resets_at` as "Try again in ~42 min"), so Pi gives limits
 * and a token estimate, never a %.
 */

/** As in the attempt engine (core/agents/attempts.ts): a limit text that names no reset is taken to last this long. */
const UNKNOWN_RESET_MS = HOUR_MS;
/** Forked sessions repeat entries (same id and time); only keys near the newest reply are kept. */
const DEDUP_WINDOW_MS = 24 * HOUR_MS;
const PRUNE_AT = 20_000;

const replyLineSchema = z.object({
  type: z.literal("message"),
  id: z.string().optional(),
  timestamp: z.string(),
  message: z.object({
    role: z.literal("assistant"),
    stopReason: z.string().optional(),
    errorMessage: z.string().optional(),
    usage: z.object({ totalTokens: z.number().nonnegative() }).optional(),
  }),
});

const limitSchema = z.object({ at: z.number(), text: z.string(), resetsAt: z.string().optional() });
const savedSchema = z.object({
  hours: z.array(hourTuple),
  recent: z.array(z.tuple([z.string(), z.number()])),
  newest: z.number(),
  limit: limitSchema.optional(),
  answeredAt: z.number().optional(),
});

interface PiAggregate {
  hours: Map<number, Hour>;
  /** entry id + time → time, to count a reply a fork repeats once. */
  recent: Map<string, number>;
  newest: number;
  /** The newest limit reply, whichever file it is in. */
  limit?: z.infer<typeof limitSchema>;
  /** The newest reply that was not an error: a limit older than it is over. */
  answeredAt?: number;
}

function parseJson(line: Buffer): unknown {
  try {
    return JSON.parse(line.toString("utf8"));
  } catch {
    return undefined;
  }
}

function prune(aggregate: PiAggregate): void {
  const cutoff = aggregate.newest - DEDUP_WINDOW_MS;
  for (const [key, at] of aggregate.recent) if (at < cutoff) aggregate.recent.delete(key);
}

function fold(aggregate: PiAggregate, line: Buffer): "used" | "ignored" | "corrupt" {
  const json = parseJson(line);
  if (json === undefined) return "corrupt";
  const parsed = replyLineSchema.safeParse(json);
  if (!parsed.success) return "ignored";
  const { id, timestamp, message } = parsed.data;
  const at = Date.parse(timestamp);
  if (Number.isNaN(at)) return "ignored";
  const key = `${id ?? ""}@${timestamp}`;
  if (aggregate.recent.has(key)) return "ignored";
  aggregate.newest = Math.max(aggregate.newest, at);
  if (at >= aggregate.newest - DEDUP_WINDOW_MS) aggregate.recent.set(key, at);
  if (aggregate.recent.size > PRUNE_AT) prune(aggregate);

  const tokens = message.usage?.totalTokens ?? 0;
  if (tokens > 0) addToHour(aggregate.hours, at, tokens);
  if (message.stopReason !== "error") {
    aggregate.answeredAt = Math.max(aggregate.answeredAt ?? 0, at);
    return "used";
  }
  // "Try again in ~42 min" counts from when the reply was written, not from now.
  const text = message.errorMessage ?? "";
  const limit = parsePiLimitText(text, new Date(at));
  if (limit && (!aggregate.limit || aggregate.limit.at < at)) aggregate.limit = { at, text, ...limit };
  return "used";
}

/** One scanner per login and source, kept for the life of the process (the companion's refreshes reuse it). */
export function piSessionScanner(home: string, cacheDir: string): SessionScanner<PiAggregate> {
  return keptSessionScanner<PiAggregate>(home, {
    name: "pi-replies",
    version: 1,
    roots: piSessionRoots(home),
    cacheDir,
    matches: (file) => file.endsWith(".jsonl"),
    // Every assistant reply has a stopReason; user and tool-result lines do not. First byte rare ('s').
    needles: ['stopReason":'],
    initial: () => ({ hours: new Map(), recent: new Map(), newest: 0 }),
    fold,
    encode: (aggregate) => ({
      hours: encodeHours(aggregate.hours),
      recent: [...aggregate.recent],
      newest: aggregate.newest,
      ...(aggregate.limit ? { limit: aggregate.limit } : {}),
      ...(aggregate.answeredAt === undefined ? {} : { answeredAt: aggregate.answeredAt }),
    }),
    decode: (saved) => {
      const parsed = savedSchema.safeParse(saved);
      if (!parsed.success) return undefined;
      const { hours, recent, ...rest } = parsed.data;
      return { ...rest, hours: decodeHours(hours), recent: new Map(recent) };
    },
    compact: prune,
  });
}

async function fromLimitReplies(context: QuotaSourceContext): Promise<QuotaReading | undefined> {
  const scanner = piSessionScanner(context.login.home, context.cacheDir);
  await scanner.refresh(context.changedFiles);
  const { limit, answeredAt } = scanner.aggregate;
  if (!limit || (answeredAt !== undefined && answeredAt > limit.at)) return undefined; // none, or over
  const resetsAt = limit.resetsAt ?? new Date(limit.at + UNKNOWN_RESET_MS).toISOString();
  if (Date.parse(resetsAt) <= context.now.getTime()) return undefined;
  const window: QuotaWindow = {
    kind: "usage_limit",
    status: "rejected",
    resetsAt,
    source: "pi-limit-text",
    observedAt: new Date(limit.at).toISOString(),
  };
  return { windows: [window], limitedUntil: resetsAt };
}

/** Quota sources of Pi, most trusted first. */
export const quotaSources: readonly QuotaSource[] = [
  {
    id: "pi-limit-text",
    description:
      "The newest usage-limit reply in the login's session files, until its reset (an hour when the text names none) or a later answer.",
    read: fromLimitReplies,
  },
  {
    id: "pi-usage-estimate",
    description: "Tokens of the current 5-hour block from the login's session files (an estimate; Pi records no %).",
    read: (context) =>
      readBlockEstimate(piSessionScanner(context.login.home, context.cacheDir), context, "pi-usage-estimate"),
  },
];
