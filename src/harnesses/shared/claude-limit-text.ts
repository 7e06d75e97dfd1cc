import { wallClock, zonedToUtc } from "./zoned-time.js";

/**
 * Read by the Claude adapter and by the ACP client (acp/failures.ts), which meets the same texts
 * from Claude's ACP adapter: shared, since one adapter never imports another.
 *
 * Claude Code's human limit texts, as seen across versions (docs/harnesses/claude.md, Limits) and
 * in 2.1.332 itself:
 *   Claude AI usage limit reached|1767225600
 *   5-hour limit reached ∙ resets 9pm
 *   You've hit your limit · resets 4pm (Asia/Kuala_Lumpur)
 *   You've hit your session limit · resets 12:50am (America/Los_Angeles)
 *   You've hit your 5-hour limit · resets Jan 30, 11:30am (Asia/Calcutta)
 *   You've hit your 5-hour limit · resets Mar 17, 2030, 5:46pm (UTC)   (2.1.332, reset > 1 day away)
 *   You've used 90% of your session limit · resets 3pm (UTC)           (a warning, not a limit)
 * A reset time without a zone is the machine's local time (the CLI formats it that way).
 */

/** What a limit text says. */
export interface ClaudeLimitText {
  /** `limit`: the login is blocked until `resetsAt`; `warning`: it is getting close. */
  severity: "limit" | "warning";
  /** Our window kind (five_hour, seven_day, ...) when the text names one. */
  window?: string;
  /** ISO time; absent when the text has none or its zone is unknown. */
  resetsAt?: string;
  /** Warnings only: "You've used 90% ..." */
  usedPercent?: number;
}

const SEPARATOR = "[·∙•]";

/** The names 2.1.332 gives its windows (its `WFe` table), plus the older "session limit". */
const WINDOW_NAMES: [RegExp, string][] = [
  [/5-hour|session/i, "five_hour"],
  [/weekly/i, "seven_day"],
  [/opus/i, "seven_day_opus"],
  [/sonnet/i, "seven_day_sonnet"],
  [/usage credit/i, "overage"],
];

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

function windowOf(name: string): string | undefined {
  return WINDOW_NAMES.find(([pattern]) => pattern.test(name))?.[1];
}

/** Parses a Claude limit or limit-warning text; undefined when the text is not one. */
export function parseClaudeLimitText(text: string, now: Date): ClaudeLimitText | undefined {
  const trimmed = text.trim();
  // The oldest form carries the reset as epoch seconds after a pipe.
  const legacy = /^Claude AI usage limit reached(?:\|(\d+))?/i.exec(trimmed);
  if (legacy) {
    const epoch = legacy[1] === undefined ? undefined : Number(legacy[1]);
    return { severity: "limit", resetsAt: epoch === undefined ? undefined : fromEpoch(epoch) };
  }
  const resets = resetsAtIn(trimmed, now);
  const warning = new RegExp(`(?:You['’]ve used|Over) (\\d+(?:\\.\\d+)?)% of your ([^·∙•]*?limit)`, "i").exec(trimmed);
  if (warning) {
    return {
      severity: "warning",
      usedPercent: Number(warning[1]),
      window: windowOf(warning[2] ?? ""),
      resetsAt: resets,
    };
  }
  const hit = new RegExp(`You['’]ve hit your ([^·∙•]*?limit)|^([^·∙•]*?limit) reached(?:\\s*${SEPARATOR}|$)`, "i").exec(
    trimmed,
  );
  if (!hit) return undefined;
  return { severity: "limit", window: windowOf(hit[1] ?? hit[2] ?? ""), resetsAt: resets };
}

const MINUTE_MS = 60_000;

/** Finds "resets <when> (<zone>)" and turns it into an ISO time. */
function resetsAtIn(text: string, now: Date): string | undefined {
  const match = /resets (?:at )?([^·∙•()]+?)\s*(?:\(([^)]+)\))?\s*(?:[·∙•]|$)/i.exec(text);
  if (!match?.[1]) return undefined;
  const zone = match[2]?.trim() ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (!isKnownZone(zone)) return undefined;
  const when = /^(?:([A-Za-z]{3})[a-z]*\.? (\d{1,2}),?\s*(?:(\d{4}),?\s*)?)?(\d{1,2})(?::(\d{2}))?\s*(am|pm)?$/i.exec(
    match[1].trim(),
  );
  if (!when) return undefined;
  const [, monthName, dayText, yearText, hourText, minuteText, meridiem] = when;
  let hour = Number(hourText);
  if (meridiem) hour = (hour % 12) + (meridiem.toLowerCase() === "pm" ? 12 : 0);
  const minute = minuteText === undefined ? 0 : Number(minuteText);
  if (hour > 23 || minute > 59) return undefined;

  const today = wallClock(now, zone);
  if (monthName === undefined) {
    // Only a time: today in that zone, or tomorrow when that time has passed already. The text
    // names the minute the reset falls in, so a time within the last minute is this one, not
    // tomorrow's (a reset 12 s away, read 20 s later, printed the minute that had just begun).
    let at = zonedToUtc({ ...today, hour, minute }, zone);
    if (at <= now.getTime() - MINUTE_MS) at = zonedToUtc({ ...today, day: today.day + 1, hour, minute }, zone);
    return new Date(at).toISOString();
  }
  const month = MONTHS.indexOf(monthName.toLowerCase()) + 1;
  if (month === 0) return undefined;
  const day = Number(dayText);
  if (yearText !== undefined)
    return new Date(zonedToUtc({ year: Number(yearText), month, day, hour, minute }, zone)).toISOString();
  // A date without a year is the next such date (a reset is never in the past).
  let at = zonedToUtc({ year: today.year, month, day, hour, minute }, zone);
  if (at <= now.getTime() - MINUTE_MS) at = zonedToUtc({ year: today.year + 1, month, day, hour, minute }, zone);
  return new Date(at).toISOString();
}

function fromEpoch(value: number): string {
  // Seconds in every form seen so far; milliseconds accepted in case a build switches.
  return new Date(value > 1e12 ? value : value * 1000).toISOString();
}

function isKnownZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
