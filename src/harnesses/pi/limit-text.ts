import { parseProviderLimitText, type LimitText } from "../shared/provider-limit-text.js";

/**
 * Pi (0.73.1) reports a failed request as the assistant message's `errorMessage`, the HTTP
 * status followed by the provider's message ("429 You exceeded your current quota, …"). Its
 * ChatGPT-subscription provider words usage limits itself (pi-ai `openai-codex-responses.ts`):
 *   "You have hit your ChatGPT usage limit (plus plan). Try again in ~42 min."
 * which the provider phrases already cover.
 */
export type PiLimitText = LimitText;

/** Parses a Pi usage-limit text; undefined when the text is not one. */
export function parsePiLimitText(text: string, now: Date): PiLimitText | undefined {
  return parseProviderLimitText(text, now);
}
