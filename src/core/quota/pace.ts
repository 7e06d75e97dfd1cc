import * as z from "zod";
import type { QuotaWindow } from "../foundation/events.js";

/**
 * The pace of a login: from its own recent readings of the window that decides, when it runs out
 * at this rate ("out ~16:40 at this pace"), or that it will not before the window resets. Pure:
 * the ledger keeps the readings, views show the answer.
 */

/** One reading of a login's blocking window, as the ledger keeps it. */
export const paceReadingSchema = z.object({
  at: z.string(),
  usedPercent: z.number().min(0).max(100),
  kind: z.string(),
  resetsAt: z.string().optional(),
});
export type PaceReading = z.infer<typeof paceReadingSchema>;

export const paceSchema = z.object({
  /** When the window reaches 100% at the recent rate (before its reset). */
  runsOutAt: z.string().optional(),
  /** At the recent rate, the window resets before it runs out. */
  lastsPastReset: z.boolean().optional(),
});
export type Pace = z.infer<typeof paceSchema>;

/** Readings older than this (behind the newest) say nothing of the present rate. */
export const HISTORY_SPAN_MS = 2 * 60 * 60_000;
/** At most this many readings per login: a busy login reports on every turn. */
export const HISTORY_POINTS = 30;
/** Fewer minutes of readings than this give a rate that one turn can swing wildly. */
export const MIN_SPAN_MS = 5 * 60_000;
/** Two readings whose reset times differ by more than this are of two different windows. */
const SAME_RESET_MS = 10 * 60_000;

/** The reading a window gives, or undefined when it has no used %. */
export function readingOf(window: QuotaWindow): PaceReading | undefined {
  if (window.usedPercent === undefined) return undefined;
  return {
    at: window.observedAt,
    usedPercent: window.usedPercent,
    kind: window.kind,
    ...(window.resetsAt ? { resetsAt: window.resetsAt } : {}),
  };
}

/** Whether `next` reads the same window as `last` (same kind, not past its reset, same reset time). */
function sameWindow(last: PaceReading, next: PaceReading): boolean {
  if (last.kind !== next.kind) return false;
  if (last.resetsAt !== undefined && Date.parse(next.at) >= Date.parse(last.resetsAt)) return false;
  if (last.resetsAt !== undefined && next.resetsAt !== undefined) {
    return Math.abs(Date.parse(last.resetsAt) - Date.parse(next.resetsAt)) <= SAME_RESET_MS;
  }
  return true;
}

/**
 * The history with `next` added: a reading of another window (the blocking one changed, or it
 * reset) starts over; the same instant replaces its reading; the result keeps the last
 * `HISTORY_SPAN_MS` and at most `HISTORY_POINTS` readings, oldest first.
 */
export function addReading(history: readonly PaceReading[], next: PaceReading): PaceReading[] {
  const last = history.at(-1);
  if (last && Date.parse(next.at) < Date.parse(last.at)) return [...history]; // an older reading arrived late
  let kept = last && sameWindow(last, next) ? history.filter((r) => r.at !== next.at) : [];
  kept = [...kept, next];
  const newest = Date.parse(next.at);
  return kept.filter((r) => newest - Date.parse(r.at) <= HISTORY_SPAN_MS).slice(-HISTORY_POINTS);
}

/**
 * The pace of the window in `history` (the newest reading's), by a least-squares line through
 * its readings. None with fewer than 2 readings, under `MIN_SPAN_MS` of them, a use that does not
 * grow, a window already full, or one whose reset has passed by `now`.
 */
export function paceOf(history: readonly PaceReading[], now = Date.now()): Pace | undefined {
  const newest = history.at(-1);
  if (!newest || newest.usedPercent >= 100) return undefined;
  if (newest.resetsAt !== undefined && Date.parse(newest.resetsAt) <= now) return undefined;
  const points = history.filter((r) => sameWindow(r, newest) || r === newest);
  if (points.length < 2) return undefined;
  const t0 = Date.parse(points[0]!.at);
  const xs = points.map((r) => Date.parse(r.at) - t0);
  const span = xs.at(-1)!;
  if (span < MIN_SPAN_MS) return undefined;
  const ys = points.map((r) => r.usedPercent);
  const meanX = xs.reduce((a, b) => a + b, 0) / xs.length;
  const meanY = ys.reduce((a, b) => a + b, 0) / ys.length;
  let covariance = 0;
  let variance = 0;
  xs.forEach((x, i) => {
    covariance += (x - meanX) * (ys[i]! - meanY);
    variance += (x - meanX) ** 2;
  });
  const perMs = covariance / variance;
  if (!(perMs > 0)) return undefined;
  const runsOut = Date.parse(newest.at) + (100 - newest.usedPercent) / perMs;
  if (newest.resetsAt !== undefined && runsOut >= Date.parse(newest.resetsAt)) return { lastsPastReset: true };
  return { runsOutAt: new Date(runsOut).toISOString() };
}

/** A pace still worth showing at `now`: not when its moment or the window's reset has passed. */
export function currentPace(pace: Pace | undefined, now: number): Pace | undefined {
  if (pace?.runsOutAt !== undefined && Date.parse(pace.runsOutAt) <= now) return undefined;
  return pace;
}

/**
 * How fast a window is being used against its own clock: the share used over the share of its
 * length gone by. 1 uses it up just as it resets; 2 twice as fast (full at half time); 0.5 leaves
 * half of it unused. From one reading, so it is known from a login's first: the average since the
 * window opened (`paceOf` is the recent rate, from the ledger's readings).
 */
export interface WindowPace {
  /** Used share ÷ elapsed share of the window. */
  ratio: number;
}

/** Under this share of the window gone by, one turn swings the ratio wildly: too early to tell. */
export const MIN_ELAPSED_SHARE = 0.02;

/**
 * The pace of `window` at `now`, or undefined when it cannot be told: no used %, no reset time,
 * a window whose length its kind does not give (`lengthMs` undefined), a reset already passed, or
 * less than `MIN_ELAPSED_SHARE` of the window gone by.
 */
export function windowPace(
  window: { usedPercent?: number; resetsAt?: string },
  lengthMs: number | undefined,
  now: number,
): WindowPace | undefined {
  if (window.usedPercent === undefined || window.resetsAt === undefined || lengthMs === undefined) return undefined;
  const left = Date.parse(window.resetsAt) - now;
  if (!(left > 0)) return undefined;
  const elapsedShare = Math.min(1, (lengthMs - left) / lengthMs);
  if (elapsedShare < MIN_ELAPSED_SHARE) return undefined;
  return { ratio: window.usedPercent / 100 / elapsedShare };
}
