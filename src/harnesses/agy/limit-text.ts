/**
 * agy's quota error, as 1.1.24 to 1.2.2 word it inside `result.error` (the model server's own
 * sentence after agy's prefix):
 *   API error (attempt 3): RESOURCE_EXHAUSTED (code 429): Individual quota reached. Please upgrade
 *   your subscription to increase your limits. Resets in 2h39m52s.
 * The same sentence ends "Contact your administrator to enable overages." for managed accounts.
 * The reset is a duration from now ("58s", "2h39m52s", "143h57m55s"). agy's plans have a 5-hour
 * window and a weekly one; the text does not say which one ran out, so a reset within five hours
 * is read as the 5-hour window and a later one as the weekly (a weekly limit in its last five
 * hours then reads as 5-hour: the reset time, which is what failover needs, is right either way).
 */

export interface AgyLimitText {
  window: "five_hour" | "seven_day";
  resetsAt: string;
}

const FIVE_HOURS_MS = 5 * 3_600_000;
const QUOTA = /Individual quota reached|quota reached|RESOURCE_EXHAUSTED/i;
const RESETS_IN = /Resets in\s+((?:\d+h)?(?:\d+m)?(?:\d+(?:\.\d+)?s)?)/i;

/** The limit and its reset in `text`; undefined when the text is not a quota error with a reset. */
export function parseAgyLimitText(text: string, now: Date): AgyLimitText | undefined {
  if (!QUOTA.test(text)) return undefined;
  const match = RESETS_IN.exec(text);
  const ms = match?.[1] ? durationMs(match[1]) : undefined;
  if (ms === undefined) return undefined;
  return {
    window: ms <= FIVE_HOURS_MS ? "five_hour" : "seven_day",
    resetsAt: new Date(now.getTime() + ms).toISOString(),
  };
}

/** "2h39m52s" in milliseconds; undefined for an empty match. */
function durationMs(text: string): number | undefined {
  const part = (unit: string) => Number(new RegExp(`(\\d+(?:\\.\\d+)?)${unit}`).exec(text)?.[1] ?? 0);
  const ms = (part("h") * 3600 + part("m(?!s)") * 60 + part("s")) * 1000;
  return ms > 0 ? Math.round(ms) : undefined;
}
