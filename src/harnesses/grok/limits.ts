import type { ParsedEvent } from "../../core/foundation/events.js";
import { acpLimitText } from "../acp/failures.js";

/*
 * How Grok Build reports limits, from xAI's published source (xai-org/grok-build, version 1.0.6,
 * crates/codegen/xai-grok-shell/src/sampling/error.rs): an HTTP 429 from its API becomes the ACP
 * error -32003 "Rate limited" whose `data` is the server's message (`map_sampling_err_to_acp`),
 * after the agent's own retries gave up. The free tier's exhaustion is a 429 too, its message
 * carrying the code `subscription:free-usage-exhausted`; headless runs print it as
 * FREE_USAGE_USER_MESSAGE instead. Neither carries a reset time (the vendor's copy "deliberately
 * promises no reset duration"), so Offrun holds such a login out for its default hour.
 */

export const GROK_RATE_LIMITED_CODE = -32003;
const FREE_USAGE_CODE = "subscription:free-usage-exhausted";
const FREE_USAGE_COPY = /reached your free Grok Build usage limit/i;
/** ACP's "authentication required"; Grok answers it for a login without a usable token. */
const AUTH_REQUIRED = -32000;

/** Whether this text is the free tier's exhaustion, as the agent or its headless mode words it. */
export function isFreeUsageExhausted(text: string): boolean {
  return text.includes(FREE_USAGE_CODE) || FREE_USAGE_COPY.test(text);
}

/** The text an ACP error's `data` carries: a string, or `{ message }` (with `promptUsage` beside it). */
function detailOf(data: unknown): string | undefined {
  if (typeof data === "string") return data;
  if (typeof data === "object" && data !== null && "message" in data && typeof data.message === "string") {
    return data.message;
  }
  return undefined;
}

function limitEvents(message: string, reading: { resetsAt?: string; window?: string }): ParsedEvent[] {
  return [
    {
      type: "limit_hit",
      message,
      ...(reading.resetsAt ? { resetsAt: reading.resetsAt } : {}),
      ...(reading.window ? { window: reading.window } : {}),
    },
    { type: "turn_end", outcome: "limited", reason: message },
  ];
}

/**
 * The turn's end for a JSON-RPC error of Grok Build's, or undefined for one the generic ACP
 * reading handles. The free tier's exhaustion is a usage limit; any other -32003 is a rate limit
 * Offrun retries, unless the server's message itself reads as a dated usage limit.
 */
export function grokAcpFailure(
  error: { code: number; message: string; data?: unknown },
  now: Date,
): ParsedEvent[] | undefined {
  const detail = detailOf(error.data);
  if (error.code === AUTH_REQUIRED) {
    const why = detail ? ` (${detail})` : "";
    const message = `Grok Build is not signed in on this login${why}. Run \`grok login\` with GROK_HOME set to this login's home (Offrun's sign-in for this login does that).`;
    return [
      { type: "error", kind: "not_logged_in", message },
      { type: "turn_end", outcome: "failed", reason: message },
    ];
  }
  if (error.code !== GROK_RATE_LIMITED_CODE) return undefined;
  const text = detail ?? error.message;
  if (isFreeUsageExhausted(text)) {
    return limitEvents(`Grok Build's free usage is used up: ${text}`, {});
  }
  const dated = acpLimitText(text, now);
  if (dated?.resetsAt) return limitEvents(`Grok Build: ${text}`, dated);
  const message = `Grok Build was rate limited: ${text}`;
  return [
    { type: "error", kind: "rate_limited", message },
    { type: "turn_end", outcome: "failed", reason: message },
  ];
}
