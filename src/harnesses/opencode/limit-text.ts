import { parseProviderLimitText, PROVIDER_LIMIT_PATTERN, type LimitText } from "../shared/provider-limit-text.js";

/**
 * OpenCode (1.18.33) passes the provider's error message through, except for its own Zen/Go
 * gateway, whose limits it words itself:
 *   "<limit> usage limit reached. It will reset in 2 hours 5 minutes. To continue using this model now, …"
 *   "Free usage exceeded, subscribe to Go"
 */
const OPENCODE_LIMIT_PATTERN = new RegExp(`${PROVIDER_LIMIT_PATTERN.source}|free usage exceeded`, "i");

export type { LimitText };

/** Parses an OpenCode usage-limit text; undefined when the text is not one. */
export function parseOpencodeLimitText(text: string, now: Date): LimitText | undefined {
  return parseProviderLimitText(text, now, OPENCODE_LIMIT_PATTERN);
}
