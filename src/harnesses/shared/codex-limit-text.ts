/**
 * Read by the Codex adapter and by the ACP client (acp/failures.ts), which meets the same texts
 * from Codex's ACP adapter: shared, since one adapter never imports another.
 *
 * Codex's usage-limit texts (codex-rs core `error.rs`, seen in 0.171.0 and older builds):
 *   You’ve hit your usage limit. Try again at 3:40 AM.                     (reset later today)
 *   You’ve hit your usage limit. Try again at Dec 3rd, 2026 2:01 AM.       (reset on another day)
 *   You’ve hit your usage limit. Upgrade to Plus … or try again at 2:49 AM. (ChatGPT plans)
 *   You’ve hit your usage limit for gpt-5.5. Switch to another model now, or try again at …
 *   You've hit your usage limit. Try again in 5 days 22 hours 11 minutes.  (old builds)
 *   You’ve hit your usage limit. Try again later.                           (no reset known)
 * The apostrophe is typographic (’) in current builds. Clock times are the CLI's local time
 * (chrono `Local`), which is this machine's zone when Offrun parses the text.
 */

/** What a Codex limit text says; `resetsAt` is an ISO time when the text names one. */
export interface CodexLimitText {
  resetsAt?: string;
}

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

const LIMIT_PATTERN = /hit your usage limit|usage limit (?:has been )?reached|usage_limit_reached/i;

/** Parses a Codex usage-limit text; undefined when the text is not one. */
export function parseCodexLimitText(text: string, now: Date): CodexLimitText | undefined {
  if (!LIMIT_PATTERN.test(text)) return undefined;
  const resetsAt = resetInDuration(text, now) ?? resetAtDate(text, now) ?? resetAtTime(text, now);
  return resetsAt === undefined ? {} : { resetsAt: resetsAt.toISOString() };
}

const UNIT_MS: [RegExp, number][] = [
  [/^d/i, 86_400_000],
  [/^h/i, 3_600_000],
  [/^m/i, 60_000],
  [/^s/i, 1_000],
];

/** "try again in 5 days 22 hours 11 minutes" (old builds counted down from now). */
function resetInDuration(text: string, now: Date): Date | undefined {
  const match = /try again in ((?:\d+\s*[a-z]+[\s,]*(?:and\s+)?)+)/i.exec(text);
  if (!match?.[1]) return undefined;
  let total = 0;
  for (const part of match[1].matchAll(/(\d+)\s*([a-z]+)/gi)) {
    const unit = UNIT_MS.find(([pattern]) => pattern.test(part[2] ?? ""));
    if (!unit) return undefined;
    total += Number(part[1]) * unit[1];
  }
  return total > 0 ? new Date(now.getTime() + total) : undefined;
}

/** "try again at Dec 3rd, 2026 2:01 AM" (the year is optional to tolerate older wording). */
function resetAtDate(text: string, now: Date): Date | undefined {
  const match =
    /try again at ([a-z]{3,9})\.? (\d{1,2})(?:st|nd|rd|th)?,?(?: (\d{4}),?)? (\d{1,2}):(\d{2})\s*([ap]\.?m\.?)?/i.exec(
      text,
    );
  if (!match) return undefined;
  const month = MONTHS.indexOf((match[1] ?? "").slice(0, 3).toLowerCase());
  if (month < 0) return undefined;
  const hour = toHour24(Number(match[4]), match[6]);
  const explicitYear = match[3] === undefined ? undefined : Number(match[3]);
  const at = (year: number) => new Date(year, month, Number(match[2]), hour, Number(match[5]));
  if (explicitYear !== undefined) return at(explicitYear);
  // Without a year, the reset is the next such date (a reset never lies in the past).
  const thisYear = at(now.getFullYear());
  return thisYear.getTime() < now.getTime() - 86_400_000 ? at(now.getFullYear() + 1) : thisYear;
}

/** "Try again at 3:40 AM": the CLI prints only a time when the reset falls on today's date. */
function resetAtTime(text: string, now: Date): Date | undefined {
  const match = /try again at (\d{1,2}):(\d{2})\s*([ap]\.?m\.?)?/i.exec(text);
  if (!match) return undefined;
  const at = new Date(
    now.getFullYear(),
    now.getMonth(),
    now.getDate(),
    toHour24(Number(match[1]), match[3]),
    Number(match[2]),
  );
  // A time already past means the text was read after midnight passed: the reset is tomorrow.
  if (at.getTime() < now.getTime() - 60_000) at.setDate(at.getDate() + 1);
  return at;
}

function toHour24(hour: number, meridiem: string | undefined): number {
  if (meridiem === undefined) return hour;
  const pm = meridiem.toLowerCase().startsWith("p");
  return (hour % 12) + (pm ? 12 : 0);
}
