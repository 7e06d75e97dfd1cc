import * as z from "zod";
import type { QuotaWindow } from "../../core/foundation/events.js";
import { keptSessionScanner, type SessionScanner } from "../shared/session-scanner.js";
import type { QuotaReading, QuotaSource, QuotaSourceContext } from "../../core/foundation/quota-types.js";
import { parseClaudeLimitText } from "../shared/claude-limit-text.js";
import { claudeSessionRoots } from "./session-files.js";
import { readAssistantLine } from "./usage-line.js";
import {
  addToHour,
  decodeHours,
  encodeHours,
  HOUR_MS,
  hourTuple,
  readBlockEstimate,
  type Hour,
} from "../shared/usage-blocks.js";

export { currentBlock } from "../shared/usage-blocks.js";

/**
 * What 2.1.332 writes to `<home>/projects/<project>/<session>.jsonl` (sub-agents in
 * `<session>/subagents/agent-*.jsonl`, `isSidechain:true`) that tells about quota:
 * - every assistant message with `message.usage`, split over one line per content block that
 *   repeat the same `message.id` and usage; 2.1.332 names the request `requestRef`, older
 *   builds `requestId`;
 * - on a usage limit, a synthetic assistant message (`model:"<synthetic>"`, `error:"rate_limit"`)
 *   whose text is the limit text ("You've hit your 5-hour limit · resets 10:01am (Asia/Kolkata)")
 *   and, since 2.1.x, `quotaLimits:{status,resetsAt (epoch s),rateLimitType}`.
 * The unified rate-limit headers themselves (utilization) are never written to the session file.
 */

/**
 * Streaming repeats and forked sessions duplicate messages. Only messages near the newest one can
 * be in the current block, so only their keys are kept: memory stays bounded on a long history.
 */
const DEDUP_WINDOW_MS = 24 * HOUR_MS;

const syntheticLineSchema = z.object({
  timestamp: z.string(),
  quotaLimits: z
    .object({ status: z.string().optional(), resetsAt: z.number().optional(), rateLimitType: z.string().optional() })
    .optional(),
  message: z.object({
    content: z.union([z.string(), z.array(z.object({ type: z.string(), text: z.string().optional() }))]),
  }),
});

interface UsageAggregate {
  hours: Map<number, Hour>;
  /** message.id + request of messages near the newest → their time, to count each message once. */
  recent: Map<string, number>;
  /** The newest message's time: the dedup window is relative to it, not to the clock. */
  newest: number;
  /** Prune `recent` when it grows past this (a cold scan may meet old files first). */
  pruneAt?: number;
  /** The previous key, for the adjacent repeats of older messages. */
  lastKey?: string;
}

const usageSavedSchema = z.object({
  hours: z.array(hourTuple),
  recent: z.array(z.tuple([z.string(), z.number()])),
  newest: z.number(),
});

function parseJson(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

const PRUNE_AT = 20_000;

function pruneRecent(aggregate: UsageAggregate): void {
  const cutoff = aggregate.newest - DEDUP_WINDOW_MS;
  for (const [key, at] of aggregate.recent) if (at < cutoff) aggregate.recent.delete(key);
  aggregate.pruneAt = Math.max(PRUNE_AT, 2 * aggregate.recent.size);
}

function foldUsage(aggregate: UsageAggregate, line: Buffer): "used" | "ignored" | "corrupt" {
  const parsed = readAssistantLine(line);
  if (parsed === "corrupt") return "corrupt";
  if (!parsed) return "ignored";
  const { message, timestamp } = parsed;
  const usage = message.usage;
  const at = Date.parse(timestamp);
  if (!usage || message.model === "<synthetic>" || Number.isNaN(at)) return "ignored";
  const key = message.id === undefined ? undefined : `${message.id}:${parsed.requestId ?? parsed.requestRef ?? ""}`;
  if (key !== undefined) {
    if (key === aggregate.lastKey || aggregate.recent.has(key)) return "ignored";
    aggregate.lastKey = key; // older messages: at least their adjacent streamed repeats count once
    aggregate.newest = Math.max(aggregate.newest, at);
    if (at >= aggregate.newest - DEDUP_WINDOW_MS) aggregate.recent.set(key, at);
    if (aggregate.recent.size > (aggregate.pruneAt ?? PRUNE_AT)) pruneRecent(aggregate);
  }
  const tokens =
    usage.input_tokens +
    usage.output_tokens +
    (usage.cache_creation_input_tokens ?? 0) +
    (usage.cache_read_input_tokens ?? 0);
  addToHour(aggregate.hours, at, tokens);
  return "used";
}

/** The last limit text (or warning) seen per window. */
interface LimitRecord {
  at: string;
  severity: "limit" | "warning";
  resetsAt?: string;
  usedPercent?: number;
  text: string;
}
const limitRecordSchema = z.object({
  at: z.string(),
  severity: z.enum(["limit", "warning"]),
  resetsAt: z.string().optional(),
  usedPercent: z.number().optional(),
  text: z.string(),
});
const limitsSchema = z.record(z.string(), limitRecordSchema);
type Limits = Record<string, LimitRecord>;

function foldLimit(limits: Limits, line: Buffer): "used" | "ignored" | "corrupt" {
  const json = parseJson(line.toString("utf8"));
  if (json === undefined) return "corrupt";
  const parsed = syntheticLineSchema.safeParse(json);
  if (!parsed.success) return "ignored";
  const { content } = parsed.data.message;
  const text = typeof content === "string" ? content : content.map((block) => block.text ?? "").join("\n");
  const at = new Date(parsed.data.timestamp);
  if (Number.isNaN(at.getTime())) return "ignored";
  // "resets 10:01am" means the next 10:01 after the message was written, not after now.
  const fromText = parseClaudeLimitText(text, at);
  const structured = parsed.data.quotaLimits;
  if (!fromText && structured?.resetsAt === undefined) return "ignored";
  const severity = fromText?.severity ?? (structured?.status === "rejected" ? "limit" : "warning");
  const resetsAt =
    structured?.resetsAt === undefined ? fromText?.resetsAt : new Date(structured.resetsAt * 1000).toISOString();
  // Builds before window names only had the 5-hour limit ("Claude AI usage limit reached|<epoch>").
  const window = structured?.rateLimitType ?? fromText?.window ?? "five_hour";
  const previous = limits[window];
  if (previous && Date.parse(previous.at) > at.getTime()) return "ignored";
  limits[window] = {
    at: at.toISOString(),
    severity,
    text,
    ...(resetsAt === undefined ? {} : { resetsAt }),
    ...(fromText?.usedPercent === undefined ? {} : { usedPercent: fromText.usedPercent }),
  };
  return "used";
}

const isSessionFile = (file: string) => file.endsWith(".jsonl");

/** One scanner per login and source, kept for the life of the process (the companion's refreshes reuse it). */
export function claudeUsageScanner(home: string, cacheDir: string): SessionScanner<UsageAggregate> {
  return keptSessionScanner<UsageAggregate>(home, {
    name: "claude-usage",
    version: 2,
    roots: claudeSessionRoots(home),
    cacheDir,
    matches: isSessionFile,
    // Every usage object Claude Code writes has cache_creation_ and cache_read_input_tokens, in any
    // key order. Buffer#indexOf first looks for the needle's first byte: starting with '"' (as
    // '"input_tokens":' does) made the search twice as slow as the read itself; '_' is rare.
    needles: ['_input_tokens":'],
    initial: () => ({ hours: new Map(), recent: new Map(), newest: 0 }),
    fold: (aggregate, line) => foldUsage(aggregate, line),
    encode: (aggregate) => ({
      hours: encodeHours(aggregate.hours),
      recent: [...aggregate.recent],
      newest: aggregate.newest,
    }),
    decode: (saved) => {
      const parsed = usageSavedSchema.safeParse(saved);
      if (!parsed.success) return undefined;
      return { hours: decodeHours(parsed.data.hours), recent: new Map(parsed.data.recent), newest: parsed.data.newest };
    },
    compact: pruneRecent,
  });
}

export function claudeLimitScanner(home: string, cacheDir: string): SessionScanner<Limits> {
  return keptSessionScanner<Limits>(home, {
    name: "claude-limits",
    version: 1,
    roots: claudeSessionRoots(home),
    cacheDir,
    matches: isSessionFile,
    // Every limit message the CLI writes is a synthetic assistant message.
    // The needle's first byte should be rare: Buffer#indexOf looks for it first ('"' is everywhere).
    needles: ["<synthetic>"],
    initial: () => ({}),
    fold: foldLimit,
    encode: (limits) => limits,
    decode: (saved) => limitsSchema.safeParse(saved).data,
  });
}

function fromObserved(context: QuotaSourceContext): QuotaReading | undefined {
  const observed = context.observed;
  if (!observed) return undefined;
  const limited = observed.limitedUntil !== undefined && Date.parse(observed.limitedUntil) > context.now.getTime();
  return { windows: observed.windows, ...(limited ? { limitedUntil: observed.limitedUntil } : {}) };
}

async function fromLimitTexts(context: QuotaSourceContext): Promise<QuotaReading | undefined> {
  const scanner = claudeLimitScanner(context.login.home, context.cacheDir);
  await scanner.refresh(context.changedFiles);
  const now = context.now.getTime();
  const windows: QuotaWindow[] = [];
  let limitedUntil: number | undefined;
  for (const [kind, record] of Object.entries(scanner.aggregate)) {
    const resets = record.resetsAt === undefined ? undefined : Date.parse(record.resetsAt);
    if (resets === undefined || resets <= now) continue; // passed, or no time to trust
    if (record.severity === "limit") limitedUntil = Math.max(limitedUntil ?? 0, resets);
    const usedPercent = record.severity === "limit" ? 100 : record.usedPercent;
    windows.push({
      kind,
      ...(usedPercent === undefined ? {} : { usedPercent }),
      resetsAt: record.resetsAt,
      status: record.severity === "limit" ? "rejected" : "warning",
      source: "claude-limit-text",
      observedAt: record.at,
    });
  }
  if (windows.length === 0) return undefined;
  return { windows, ...(limitedUntil === undefined ? {} : { limitedUntil: new Date(limitedUntil).toISOString() }) };
}

/** Quota sources of Claude Code, most trusted first. */
export const quotaSources: readonly QuotaSource[] = [
  {
    id: "claude-stream",
    description: "The rate_limit_event of Offrun's own latest run of this login (exact, as fresh as that run).",
    read: (context) => Promise.resolve(fromObserved(context)),
  },
  {
    id: "claude-limit-text",
    description: "Usage-limit messages in the login's session files, with their reset time (only while it is ahead).",
    read: fromLimitTexts,
  },
  {
    id: "claude-usage-estimate",
    description:
      "Tokens of the current 5-hour block from the login's session files, counted like ccusage (an estimate).",
    read: (context) =>
      readBlockEstimate(claudeUsageScanner(context.login.home, context.cacheDir), context, "claude-usage-estimate"),
  },
];
