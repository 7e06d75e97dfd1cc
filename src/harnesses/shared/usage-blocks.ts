import * as z from "zod";
import type { QuotaWindow } from "../../core/foundation/events.js";
import type { QuotaReading, QuotaSourceContext } from "../../core/foundation/quota-types.js";
import type { SessionScanner } from "./session-scanner.js";

/**
 * ccusage's 5-hour blocks, for CLIs whose session files record tokens but no provider window
 * (Claude Code's estimate, Pi): a block starts on the hour of its first message, lasts 5 hours,
 * and a gap of 5 hours starts a new one. Tokens are kept per clock hour, which is all a block needs.
 */

export const HOUR_MS = 3_600_000;
export const BLOCK_MS = 5 * HOUR_MS;

/** One clock hour of usage. */
export interface Hour {
  first: number;
  last: number;
  tokens: number;
}

/** Adds one message's tokens, written at `at` (epoch ms), to its clock hour. */
export function addToHour(hours: Map<number, Hour>, at: number, tokens: number): void {
  const hourStart = Math.floor(at / HOUR_MS) * HOUR_MS;
  const hour = hours.get(hourStart);
  if (hour) {
    hour.first = Math.min(hour.first, at);
    hour.last = Math.max(hour.last, at);
    hour.tokens += tokens;
  } else hours.set(hourStart, { first: at, last: at, tokens });
}

/** The current ccusage-style block: it starts on the hour of its first message and lasts 5 hours. */
export function currentBlock(
  hours: ReadonlyMap<number, Hour>,
  now: Date,
): { start: number; tokens: number; last: number } | undefined {
  let block: { start: number; tokens: number; last: number } | undefined;
  for (const start of [...hours.keys()].sort((a, b) => a - b)) {
    const hour = hours.get(start)!;
    if (!block || hour.first - block.start >= BLOCK_MS || hour.first - block.last > BLOCK_MS)
      block = { start, tokens: 0, last: hour.first };
    block.tokens += hour.tokens;
    block.last = Math.max(block.last, hour.last);
  }
  const at = now.getTime();
  if (!block || at >= block.start + BLOCK_MS || at - block.last > BLOCK_MS) return undefined;
  return block;
}

/**
 * The quota reading of a CLI's token estimate, once `scanner` has read what changed: the current
 * 5-hour block's tokens and its end, or 0 tokens and no reset between blocks; undefined when the
 * session files recorded no tokens at all. `source` names the quota source (`claude-usage-estimate`).
 */
export async function readBlockEstimate(
  scanner: SessionScanner<{ hours: ReadonlyMap<number, Hour> }>,
  context: QuotaSourceContext,
  source: string,
): Promise<QuotaReading | undefined> {
  await scanner.refresh(context.changedFiles);
  const { hours } = scanner.aggregate;
  if (hours.size === 0) return undefined;
  const block = currentBlock(hours, context.now);
  const window: QuotaWindow = {
    kind: "five_hour",
    usedTokens: block?.tokens ?? 0,
    ...(block ? { resetsAt: new Date(block.start + BLOCK_MS).toISOString() } : {}),
    source,
    observedAt: context.now.toISOString(),
  };
  return { windows: [window] };
}

/** Hours as JSON for a scanner's cache: [start, first, last, tokens]. */
export const hourTuple = z.tuple([z.number(), z.number(), z.number(), z.number()]);

export function encodeHours(hours: ReadonlyMap<number, Hour>): [number, number, number, number][] {
  return [...hours].map(([start, h]) => [start, h.first, h.last, h.tokens]);
}

export function decodeHours(saved: readonly [number, number, number, number][]): Map<number, Hour> {
  return new Map(saved.map(([start, first, last, tokens]) => [start, { first, last, tokens }]));
}
