/**
 * Pi (0.73.1) reports a failed request as the assistant message's `errorMessage`, the HTTP
 * status followed by the provider's message ("429 You exceeded your current quota, …"). Its
 * ChatGPT-subscription provider words usage limits itself (pi-ai `openai-codex-responses.ts`):
 *   "You have hit your ChatGPT usage limit (plus plan). Try again in ~42 min."
 * Other texts seen through it: OpenAI's `insufficient_quota`, and usage-limit texts naming a
 * reset time ("… resets at 2026-11-30T03:40:00.000Z").
 */

/** What a limit text says; `resetsAt` is an ISO time when the text names one. */
export interface PiLimitText {
  resetsAt?: string;
}

const LIMIT_PATTERN =
  /usage limit|exceeded your current quota|insufficient_quota|quota (?:exceeded|exhausted)|usage_limit_reached/i;

const UNIT_MS: [RegExp, number][] = [
  [/^d/i, 86_400_000],
  [/^h/i, 3_600_000],
  [/^m/i, 60_000],
  [/^s/i, 1_000],
];

/** Parses a Pi usage-limit text; undefined when the text is not one. */
export function parsePiLimitText(text: string, now: Date): PiLimitText | undefined {
  if (!LIMIT_PATTERN.test(text)) return undefined;
  const resetsAt = resetInDuration(text, now) ?? resetAtIso(text);
  return resetsAt === undefined ? {} : { resetsAt: resetsAt.toISOString() };
}

/** "Try again in ~42 min", "resets in 2 hours 5 minutes". */
function resetInDuration(text: string, now: Date): Date | undefined {
  const match = /(?:resets?|try again) in ~?((?:\d+\s*[a-z]+[\s,]*(?:and\s+)?)+)/i.exec(text);
  if (!match?.[1]) return undefined;
  let total = 0;
  for (const part of match[1].matchAll(/(\d+)\s*([a-z]+)/gi)) {
    const unit = UNIT_MS.find(([pattern]) => pattern.test(part[2] ?? ""));
    if (!unit) return undefined;
    total += Number(part[1]) * unit[1];
  }
  return total > 0 ? new Date(now.getTime() + total) : undefined;
}

/** "resets at 2026-11-30T03:40:00.000Z". */
function resetAtIso(text: string): Date | undefined {
  const match = /resets? at (\d{4}-\d{2}-\d{2}T[\d:.]+(?:Z|[+-]\d{2}:?\d{2}))/i.exec(text);
  if (!match?.[1]) return undefined;
  const at = new Date(match[1]);
  return Number.isNaN(at.getTime()) ? undefined : at;
}
