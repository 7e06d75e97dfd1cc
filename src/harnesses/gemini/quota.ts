import * as z from "zod";
import type { QuotaWindow } from "../../core/foundation/events.js";
import { keptSessionScanner, type SessionScanner } from "../shared/session-scanner.js";
import type { QuotaReading, QuotaSource, QuotaSourceContext } from "../../core/foundation/quota-types.js";
import { DAILY_RESET_ZONE, nextMidnight } from "./limit-text.js";
import { geminiSessionRoots } from "./session-files.js";

/**
 * What Gemini CLI 0.61.0 writes to `.gemini/tmp/<project>/chats/session-*.jsonl` that tells about
 * quota (test/fixtures/gemini/0.61.0/quota-home): each model reply as a line
 * `{id, timestamp, type:"gemini", tokens:{input,output,cached,thoughts,tool,total}}`. Records are
 * rewritten by id (a resume writes them again, with a new timestamp and without tokens, and
 * `$set` lines replay whole message lists), so a reply is counted once, by id.
 * A quota error leaves nothing at all: the file of a run that hit its limit holds only the
 * prompt, and 0.61.0 deletes that file when the next session starts. The used % exists only in
 * the CLI's memory (`retrieveUserQuota`, Google sign-ins, shown by the interactive `/stats`), so
 * Gemini CLI gives a token count per day, never a %; limits come from Offrun's own runs.
 */

const DAY_MS = 86_400_000;
const PRUNE_AT = 20_000;

const replyLineSchema = z.object({
  id: z.string(),
  timestamp: z.string(),
  type: z.literal("gemini"),
  tokens: z.object({ total: z.number().nonnegative() }),
});
const savedSchema = z.object({
  days: z.array(z.tuple([z.string(), z.number()])),
  seen: z.array(z.tuple([z.string(), z.number()])),
  newest: z.number(),
});

interface GeminiUsage {
  /** The Pacific-time day (YYYY-MM-DD) → tokens: the Gemini API's daily quotas reset at its midnight. */
  days: Map<string, number>;
  /** Reply id → its time; ids older than two days before the newest are dropped. */
  seen: Map<string, number>;
  newest: number;
}

const dayFormat = new Intl.DateTimeFormat("en-CA", {
  timeZone: DAILY_RESET_ZONE,
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
});
/** The quota day of an instant: its date on the Pacific wall clock. */
const quotaDay = (at: number) => dayFormat.format(new Date(at));

function prune(usage: GeminiUsage): void {
  const cutoff = usage.newest - 2 * DAY_MS;
  for (const [id, at] of usage.seen) if (at < cutoff) usage.seen.delete(id);
  const keep = new Set([quotaDay(usage.newest), quotaDay(usage.newest - DAY_MS)]);
  for (const day of usage.days.keys()) if (!keep.has(day)) usage.days.delete(day);
}

function fold(usage: GeminiUsage, line: Buffer): "used" | "ignored" | "corrupt" {
  let json: unknown;
  try {
    json = JSON.parse(line.toString("utf8"));
  } catch {
    return "corrupt";
  }
  const parsed = replyLineSchema.safeParse(json);
  if (!parsed.success) return "ignored"; // a `$set` replay, a user message, a header
  const { id, timestamp, tokens } = parsed.data;
  const at = Date.parse(timestamp);
  if (Number.isNaN(at) || usage.seen.has(id)) return "ignored";
  usage.seen.set(id, at);
  usage.newest = Math.max(usage.newest, at);
  const day = quotaDay(at);
  usage.days.set(day, (usage.days.get(day) ?? 0) + tokens.total);
  if (usage.seen.size > PRUNE_AT) prune(usage);
  return "used";
}

/** One scanner per login, kept for the life of the process (the companion's refreshes reuse it). */
export function geminiUsageScanner(home: string, cacheDir: string): SessionScanner<GeminiUsage> {
  return keptSessionScanner<GeminiUsage>(home, {
    name: "gemini-usage",
    version: 1,
    roots: geminiSessionRoots(home),
    cacheDir,
    matches: (file) => /[/\\]chats[/\\]session-[^/\\]+\.jsonl$/.test(file),
    // Only a model reply has tokens; a needle whose first byte is rare keeps the byte search fast.
    needles: ['tokens":{'],
    initial: () => ({ days: new Map(), seen: new Map(), newest: 0 }),
    fold,
    encode: (usage) => ({ days: [...usage.days], seen: [...usage.seen], newest: usage.newest }),
    decode: (saved) => {
      const parsed = savedSchema.safeParse(saved);
      if (!parsed.success) return undefined;
      return { days: new Map(parsed.data.days), seen: new Map(parsed.data.seen), newest: parsed.data.newest };
    },
    compact: prune,
  });
}

async function fromChats(context: QuotaSourceContext): Promise<QuotaReading | undefined> {
  const scanner = geminiUsageScanner(context.login.home, context.cacheDir);
  await scanner.refresh(context.changedFiles);
  if (scanner.aggregate.seen.size === 0) return undefined;
  const window: QuotaWindow = {
    kind: "daily",
    usedTokens: scanner.aggregate.days.get(quotaDay(context.now.getTime())) ?? 0,
    resetsAt: nextMidnight(context.now, DAILY_RESET_ZONE),
    source: "gemini-usage-estimate",
    observedAt: context.now.toISOString(),
  };
  return { windows: [window] };
}

/** Quota sources of Gemini CLI (limits come from Offrun's own runs: the chat files keep none). */
export const quotaSources: readonly QuotaSource[] = [
  {
    id: "gemini-usage-estimate",
    description:
      "Tokens of today's replies (Pacific day, when the Gemini API's daily quotas reset) from the login's chat files; no %.",
    read: fromChats,
  },
];
