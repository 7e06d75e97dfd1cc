import { resetsText, type Clock } from "../foundation/time-words.js";

/**
 * How every face writes one quota window: the menu bar, Agent Logins, the Agents detail, the
 * Start Agent form, `offrun logins`/`offrun quota` and the quota line of `show`/`watch` all call
 * windowText. Always the share used, and saying so; the reset as foundation/time-words.ts writes
 * a time (the user's 12- or 24-hour clock):
 *
 *   "5-Hour 23% used · resets 21:00"        the reset is today
 *   "7-Day 40% used · resets Tue 09:00"     within a week: the weekday first
 *   "7-Day 40% used · resets 2026-03-20 09:00"  further off: the date
 *   "5-Hour 23% used"                       no reset known; "use unknown" for a percent not known
 */

/**
 * A window's name in title case: "5-Hour", "7-Day", "7-Day (Opus)", "Daily", "Monthly", "2-Hour",
 * "90-Minute"; an unknown one as its own words ("Some New Window"). 7-Day, not Weekly: the
 * window runs seven days from first use, not a calendar week, as the CLIs' own name says.
 */
export function windowName(kind: string): string {
  const named: Record<string, string> = {
    five_hour: "5-Hour",
    seven_day: "7-Day",
    daily: "Daily",
    monthly: "Monthly",
  };
  if (named[kind]) return named[kind];
  const capital = (word: string) => `${word.charAt(0).toUpperCase()}${word.slice(1)}`;
  const weekly = /^seven_day_(\w+)$/.exec(kind);
  if (weekly) return `7-Day (${weekly[1]!.split("_").map(capital).join(" ")})`;
  const minutes = /^window_(\d+)m$/.exec(kind);
  if (minutes) return Number(minutes[1]) % 60 === 0 ? `${Number(minutes[1]) / 60}-Hour` : `${minutes[1]}-Minute`;
  return kind
    .split(/[_\s]+/)
    .filter(Boolean)
    .map(capital)
    .join(" ");
}

/** "5-Hour 23% used · resets 21:00" (see the top of this file). */
export function windowText(
  window: { kind: string; usedPercent?: number; resetsAt?: string },
  now: number,
  clock?: Clock,
): string {
  const used = window.usedPercent === undefined ? "use unknown" : `${Math.round(window.usedPercent)}% used`;
  const reset = window.resetsAt ? ` · ${resetsText(window.resetsAt, now, clock)}` : "";
  return `${windowName(window.kind)} ${used}${reset}`;
}

/**
 * How long a window of this kind runs, or undefined when its kind does not say (a month is not a
 * fixed length; an unknown kind is not guessed).
 */
export function windowLengthMs(kind: string): number | undefined {
  const hour = 3_600_000;
  if (kind === "five_hour") return 5 * hour;
  if (kind === "daily") return 24 * hour;
  if (kind === "seven_day" || kind.startsWith("seven_day_")) return 7 * 24 * hour;
  const minutes = /^window_(\d+)m$/.exec(kind);
  return minutes ? Number(minutes[1]) * 60_000 : undefined;
}
