import { wallClock, zonedToUtc } from "../shared/zoned-time.js";

/**
 * Gemini CLI's quota texts:
 *   Usage limit reached for gemini-2.5-pro.\nAccess resets at 4:05 PM PDT.   (interactive UI, 0.61.0)
 *   Usage limit reached for all Pro models.                                   (no reset known)
 *   [API Error: You have exhausted your daily quota on this model.]           (headless 0.61.0, exit 173)
 *   [API Error: <message>\nSuggested retry after 7200s.]                      (a terminal quota, delay > 300 s)
 * "Access resets at" is `Intl.DateTimeFormat("en-US", {hour, minute, timeZoneName: "short"})` of
 * now + the server's retry delay: a clock time and a short zone name ("PDT", "GMT+5:30"), no date.
 * Daily quotas of the Gemini API reset at midnight Pacific time (ai.google.dev rate-limit docs),
 * which is the reset Offrun records when the text names none.
 */

/** What a Gemini limit text says. */
export interface GeminiLimitText {
  /** "daily" for the per-day quota; undefined when the text does not say which window. */
  window?: string;
  /** The model the limit applies to, when the text names one. */
  model?: string;
  /** ISO instant; absent when neither the text nor the window gives one. */
  resetsAt?: string;
  /** The zone the reset was read in: the text's own label ("PDT") or the IANA zone assumed. */
  zone?: string;
}

export const DAILY_RESET_ZONE = "America/Los_Angeles";
/** 0.61.0 retries delays up to 300 s itself; a longer one makes the quota error terminal. */
const MAX_RETRYABLE_DELAY_SECONDS = 300;

/** UTC offsets (minutes) of the short names en-US gives the zones it names by letters. */
const ZONE_OFFSETS: Record<string, number> = {
  UTC: 0,
  GMT: 0,
  EST: -300,
  EDT: -240,
  CST: -360,
  CDT: -300,
  MST: -420,
  MDT: -360,
  PST: -480,
  PDT: -420,
  AKST: -540,
  AKDT: -480,
  HST: -600,
};

/** Parses a Gemini quota text; undefined when the text is not one. */
export function parseGeminiLimitText(text: string, now: Date): GeminiLimitText | undefined {
  const usage = /Usage limit reached for ([^\n]+?)\.(?:\s|$)/i.exec(text);
  if (usage) {
    const model = usage[1]?.trim();
    const reset = accessResetsAt(text, now);
    return { ...(model ? { model } : {}), ...(reset ?? {}) };
  }
  if (/exhausted your daily quota/i.test(text)) {
    return { window: "daily", resetsAt: nextMidnight(now, DAILY_RESET_ZONE), zone: DAILY_RESET_ZONE };
  }
  const retry = /Suggested retry after (\d+(?:\.\d+)?)(ms|s)\b/i.exec(text);
  if (retry && /quota|exhausted|limit/i.test(text)) {
    const seconds = Number(retry[1]) / (retry[2] === "ms" ? 1000 : 1);
    if (seconds > MAX_RETRYABLE_DELAY_SECONDS)
      return { resetsAt: new Date(now.getTime() + seconds * 1000).toISOString() };
  }
  return undefined;
}

/** "Access resets at 4:05 PM PDT.": the next such clock time in that zone. */
function accessResetsAt(text: string, now: Date): { resetsAt: string; zone: string } | undefined {
  const match = /Access resets at (\d{1,2}):(\d{2})\s*([AP]\.?M\.?)?\s*([A-Z]{2,5}(?:[+-]\d{1,2}(?::\d{2})?)?)?/i.exec(
    text,
  );
  if (!match) return undefined;
  let hour = Number(match[1]);
  const minute = Number(match[2]);
  if (match[3]) hour = (hour % 12) + (match[3].toLowerCase().startsWith("p") ? 12 : 0);
  if (hour > 23 || minute > 59) return undefined;
  const label = match[4]?.toUpperCase();
  const offset = label === undefined ? -now.getTimezoneOffset() : offsetOf(label);
  if (offset === undefined) return undefined; // a zone name en-US does not print; refuse to guess
  // Wall clock of `now` in that offset, then the first such time that is not in the past.
  const shifted = new Date(now.getTime() + offset * 60_000);
  let at =
    Date.UTC(shifted.getUTCFullYear(), shifted.getUTCMonth(), shifted.getUTCDate(), hour, minute) - offset * 60_000;
  if (at < now.getTime() - 60_000) at += 86_400_000;
  const zone = label ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  return { resetsAt: new Date(at).toISOString(), zone };
}

/** Minutes east of UTC for "PDT", "GMT+8", "UTC-3:30"; undefined for names we cannot place. */
function offsetOf(label: string): number | undefined {
  const numeric = /^(?:GMT|UTC)([+-])(\d{1,2})(?::(\d{2}))?$/.exec(label);
  if (numeric) {
    const minutes = Number(numeric[2]) * 60 + Number(numeric[3] ?? 0);
    return numeric[1] === "-" ? -minutes : minutes;
  }
  return ZONE_OFFSETS[label];
}

/** The next midnight after `now` on the wall clock of `zone`. */
export function nextMidnight(now: Date, zone: string): string {
  const wall = wallClock(now, zone);
  return new Date(zonedToUtc({ ...wall, day: wall.day + 1, hour: 0, minute: 0 }, zone)).toISOString();
}
