/**
 * Usage-limit texts of OpenAI-compatible providers, as CLIs that pass the provider's message
 * through (OpenCode, Pi) print them: OpenAI's `insufficient_quota` ("You exceeded your current
 * quota, …"), gateway texts that say when the limit resets ("It will reset in 2 hours 5
 * minutes", "Try again in ~42 min") or name the instant ("… resets at 2026-11-30T03:40:00Z").
 */

/** What a limit text says; `resetsAt` is an ISO time when the text names one. */
export interface LimitText {
  resetsAt?: string;
}

/** The phrases every such CLI shows for a usage limit; a CLI may add its own wording. */
export const PROVIDER_LIMIT_PATTERN =
  /usage limit|exceeded your current quota|insufficient_quota|quota (?:exceeded|exhausted)|usage_limit_reached/i;

const UNIT_MS: [RegExp, number][] = [
  [/^d/i, 86_400_000],
  [/^h/i, 3_600_000],
  [/^m/i, 60_000],
  [/^s/i, 1_000],
];

/** Parses a usage-limit text matching `pattern`; undefined when the text is not one. */
export function parseProviderLimitText(
  text: string,
  now: Date,
  pattern = PROVIDER_LIMIT_PATTERN,
): LimitText | undefined {
  if (!pattern.test(text)) return undefined;
  const resetsAt = resetInDuration(text, now) ?? resetAtIso(text);
  return resetsAt === undefined ? {} : { resetsAt: resetsAt.toISOString() };
}

/** "reset in 2 hours 5 minutes", "resets in …", "try again in ~42 min". */
function resetInDuration(text: string, now: Date): Date | undefined {
  const match = /(?:resets?|try again) in ~?((?:\d+\s*[a-z]+[\s,]*(?:and\s+)?)+)/i.exec(text);
  if (!match?.[1]) return undefined;
  let total = 0;
  for (const part of match[1].matchAll(/(\d+)\s*([a-z]+)/gi)) {
    const unit = UNIT_MS.find(([unitPattern]) => unitPattern.test(part[2] ?? ""));
    if (!unit) return undefined;
    total += Number(part[1]) * unit[1];
  }
  return total > 0 ? new Date(now.getTime() + total) : undefined;
}

/** "resets at 2026-11-30T03:40:00.000Z" (a machine time some gateways put in the message). */
function resetAtIso(text: string): Date | undefined {
  const match = /resets? at (\d{4}-\d{2}-\d{2}T[\d:.]+(?:Z|[+-]\d{2}:?\d{2}))/i.exec(text);
  if (!match?.[1]) return undefined;
  const at = new Date(match[1]);
  return Number.isNaN(at.getTime()) ? undefined : at;
}
