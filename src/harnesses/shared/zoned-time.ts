/**
 * Wall-clock times in an IANA zone, for the vendors' limit texts that name a reset by the clock
 * of a zone (Claude's "resets 4pm (Asia/Kuala_Lumpur)", Gemini's daily reset at midnight Pacific).
 */

/** A date and time as a clock in some zone reads it. */
export interface WallClock {
  year: number;
  month: number; // 1..12
  day: number; // may overflow; Date.UTC normalizes it
  hour: number;
  minute: number;
}

/** The wall-clock date and time at `instant` in `zone`. */
export function wallClock(instant: Date, zone: string): WallClock {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone: zone,
    hourCycle: "h23",
    year: "numeric",
    month: "numeric",
    day: "numeric",
    hour: "numeric",
    minute: "numeric",
  }).formatToParts(instant);
  const part = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return { year: part("year"), month: part("month"), day: part("day"), hour: part("hour"), minute: part("minute") };
}

/** The instant (epoch ms) whose wall clock in `zone` reads `wall` (two passes settle DST edges). */
export function zonedToUtc(wall: WallClock, zone: string): number {
  const target = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute);
  let guess = target;
  for (let pass = 0; pass < 2; pass++) {
    const seen = wallClock(new Date(guess), zone);
    const seenAsUtc = Date.UTC(seen.year, seen.month - 1, seen.day, seen.hour, seen.minute);
    guess += target - seenAsUtc;
  }
  return guess;
}
