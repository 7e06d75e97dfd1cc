import { RequestError } from "@agentclientprotocol/sdk";
import type { ParsedEvent, TurnOutcome } from "../../core/foundation/events.js";
import type { ErrorKind } from "../../core/foundation/errors.js";
import { parseClaudeLimitText } from "../shared/claude-limit-text.js";
import { parseCodexLimitText } from "../shared/codex-limit-text.js";
import { parseProviderLimitText } from "../shared/provider-limit-text.js";
import type { AcpAgentDefinition } from "./definition.js";

/** ACP's JSON-RPC code for "authentication required" (schema `ErrorCode`). */
export const AUTH_REQUIRED = -32000;

/** The agent never answered `initialize` in time. */
export class InitializeTimeout extends Error {}
/** The agent process ended while Offrun was still waiting on it. */
export class AgentExited extends Error {}

/**
 * ACP has no usage-limit signal (no stopReason or error code for it), so a limit is recognised
 * only by a known vendor text in the error of `session/prompt`: Gemini CLI's
 * (docs/harnesses/gemini.md), Claude's and Codex's for their ACP adapters, and the
 * OpenAI-compatible providers' texts that OpenCode and Pi pass through ("You exceeded your current
 * quota", "… resets at <ISO>"). Gemini CLI 0.61.0's own ACP mode turns every 429, a usage limit
 * too, into "Rate limit exceeded. Try again later.", which stays a transient rate limit. Anything
 * else that looks like a 429 is one.
 */
export function acpLimitText(text: string, now: Date): { resetsAt?: string; window?: string } | undefined {
  if (/Usage limit reached for /i.test(text)) return {};
  if (/exhausted your daily quota/i.test(text)) return { window: "daily" };
  const claude = parseClaudeLimitText(text, now);
  // The vendors' wordings overlap ("You've hit your usage limit" reads as Claude's and Codex's,
  // "… hit your usage limit. … resets at <ISO>" as Codex's and a provider's): the first parser
  // that finds a reset time wins, and a text no parser dates is a limit without one.
  const readings = [
    claude?.severity === "limit" ? { resetsAt: claude.resetsAt, window: claude.window } : undefined,
    parseCodexLimitText(text, now),
    parseProviderLimitText(text, now),
  ].filter((r): r is { resetsAt?: string; window?: string } => r !== undefined);
  const dated = readings.find((r) => r.resetsAt !== undefined);
  if (dated) return dated;
  const first = readings[0];
  return first === undefined ? undefined : first.window === undefined ? {} : { window: first.window };
}

function textOf(error: unknown): string {
  if (error instanceof RequestError) {
    const data =
      error.data === undefined ? "" : ` ${typeof error.data === "string" ? error.data : JSON.stringify(error.data)}`;
    return `${error.message}${data}`;
  }
  return error instanceof Error ? error.message : String(error);
}

function end(outcome: TurnOutcome, reason: string): ParsedEvent {
  return { type: "turn_end", outcome, reason };
}

/** The events that end a turn which failed with `error`: an error (or limit) and the one turn_end. */
export function failureEvents(
  definition: AcpAgentDefinition,
  error: unknown,
  stderrTail: string,
  now: Date,
): ParsedEvent[] {
  const name = definition.displayName;
  const detail = textOf(error);
  const fail = (kind: ErrorKind, message: string): ParsedEvent[] => [
    { type: "error", kind, message },
    end("failed", message),
  ];

  if (error instanceof InitializeTimeout) {
    return fail(
      "timed_out",
      `${name} did not answer the ACP \`initialize\` request within ${detail}. Check that \`${[definition.command, ...definition.args].join(" ")}\` starts an ACP agent on stdio.`,
    );
  }
  if (error instanceof RequestError && definition.extensions?.failure) {
    const own = definition.extensions.failure(
      { code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) },
      now,
    );
    if (own) return own;
  }
  if (error instanceof RequestError && error.code === AUTH_REQUIRED) {
    const fix = definition.loginHint
      ? ` Run \`${definition.loginHint}\` with ${definition.homeVariable} set to this login's home.`
      : "";
    return fail("not_logged_in", `Not logged in to ${name}.${fix}`);
  }
  const limit = acpLimitText(`${detail}\n${stderrTail}`, now);
  if (limit) {
    return [
      {
        type: "limit_hit",
        message: detail,
        ...(limit.resetsAt ? { resetsAt: limit.resetsAt } : {}),
        ...(limit.window ? { window: limit.window } : {}),
      },
      end("limited", detail),
    ];
  }
  if (/\b429\b|too many requests|rate limit|RESOURCE_EXHAUSTED/i.test(detail)) {
    return fail("rate_limited", `${name} was rate limited: ${detail}`);
  }
  if (error instanceof AgentExited) {
    const tail = stderrTail.trim().split("\n").slice(-3).join("\n");
    return fail("process_failed", `${name} ended before the turn finished (${detail}).${tail ? `\n${tail}` : ""}`);
  }
  return fail("process_failed", `${name} failed: ${detail}`);
}
