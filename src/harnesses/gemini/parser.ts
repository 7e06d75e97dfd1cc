import type { ParsedEvent } from "../../core/foundation/events.js";
import type { ErrorKind } from "../../core/foundation/errors.js";
import type { StreamParser } from "../types.js";
import { parseGeminiLimitText } from "./limit-text.js";
import { GEMINI_LINE_TYPES, geminiEnvelopeSchema, geminiLineSchema, type GeminiLine } from "./stream-schema.js";
import { jsonLineEvents } from "../shared/json-lines.js";

const LINES = { envelope: geminiEnvelopeSchema, knownTypes: GEMINI_LINE_TYPES, line: geminiLineSchema };

/** Which CLI prints the stream; used in messages. */
export interface GeminiParserOptions {
  cliName?: string;
  /** How to sign in, for the not-logged-in message. */
  loginHint?: string;
  now?: () => Date;
}

/**
 * Tool results that mean the CLI refused the call itself (0.61.0 ToolErrorType): plan mode's policy
 * denies writes, and in headless mode tools that would need approval are not registered at all
 * (auto_edit drops run_shell_command; default drops write_file too).
 */
const REFUSED_TOOL_ERRORS = new Set(["policy_violation", "tool_not_registered", "permission_denied"]);
/** Plan mode answers a write outside its plans folder as invalid_tool_params ("Access denied: plan path …"). */
const REFUSAL_TEXT = /denied by policy|^Access denied|Plan Mode/i;

/**
 * What 0.61.0 prints on stderr, exit 41, when the home has no usable login:
 *   "When using Gemini API, you must specify the GEMINI_API_KEY environment variable."
 *   "Invalid auth method selected."                  (settings.json names no auth type)
 *   "Please set an Auth method in your …settings.json" (older builds)
 */
const NOT_LOGGED_IN_PATTERN =
  /must specify the GEMINI_API_KEY|Invalid auth method selected|set an Auth method|not (?:logged|signed) in|login required|API key not valid|UNAUTHENTICATED/i;
const AUTH_EXIT_CODE = 41; // ExitCodes.FATAL_AUTHENTICATION_ERROR

/** A parser for one turn of `gemini -p … -o stream-json`. */
export function createGeminiParser(options: GeminiParserOptions = {}): StreamParser {
  const cli = options.cliName ?? "Gemini CLI";
  const notLoggedIn = `${cli} is not logged in. ${options.loginHint ?? "Run `gemini` in a terminal and sign in (or set GEMINI_API_KEY)"}, then try again.`;
  const now = options.now ?? (() => new Date());
  const calls = new Map<string, { name: string; input: unknown }>();
  let text = ""; // assistant deltas not yet emitted: one text event per uninterrupted run
  let ended = false;
  let limited: string | undefined;
  let lastError: string | undefined;

  const flush = (): ParsedEvent[] => {
    if (text === "") return [];
    const event: ParsedEvent = { type: "text", text };
    text = "";
    return [event];
  };

  const end = (outcome: "completed" | "failed" | "limited", reason?: string, exitCode?: number | null) => {
    if (ended) return [];
    ended = true;
    const event: ParsedEvent = {
      type: "turn_end",
      outcome,
      ...(reason === undefined ? {} : { reason }),
      ...(exitCode === undefined ? {} : { exitCode }),
    };
    return [event];
  };

  const failure = (message: string): ParsedEvent[] => {
    const limit = parseGeminiLimitText(message, now());
    if (limit) {
      if (limited) return [];
      limited = message;
      const { resetsAt, window } = limit;
      return [{ type: "limit_hit", message, ...(resetsAt ? { resetsAt } : {}), ...(window ? { window } : {}) }];
    }
    const kind = classifyGeminiFailure(message);
    return [{ type: "error", kind, message: kind === "not_logged_in" ? notLoggedIn : `${cli} failed: ${message}` }];
  };

  const onLine = (line: GeminiLine): ParsedEvent[] => {
    if (line.type === "message") {
      if (line.role === "assistant") text += line.content;
      return []; // the user's own prompt is echoed back: Offrun logged it already
    }
    const events = flush();
    switch (line.type) {
      case "init":
        events.push({ type: "session", sessionId: line.session_id, ...(line.model ? { model: line.model } : {}) });
        break;
      case "tool_use":
        calls.set(line.tool_id, { name: line.tool_name, input: line.parameters });
        events.push({ type: "tool_call", id: line.tool_id, name: line.tool_name, input: line.parameters });
        break;
      case "tool_result": {
        const isError = line.status !== "success";
        const output = line.output ?? line.error?.message ?? "";
        events.push({ type: "tool_result", id: line.tool_id, output, isError });
        const call = calls.get(line.tool_id);
        const refused = REFUSED_TOOL_ERRORS.has(line.error?.type ?? "") || REFUSAL_TEXT.test(line.error?.message ?? "");
        if (isError && call && refused) {
          events.push({ type: "denial", tool: call.name, input: call.input });
        }
        break;
      }
      case "error":
        // Loop detection and blocked hooks are warnings; the turn goes on.
        if (line.severity === "warning") events.push({ type: "notice", level: "warning", message: line.message });
        else lastError = line.message;
        break;
      case "result": {
        const s = line.stats;
        if (s?.input_tokens !== undefined && s.output_tokens !== undefined) {
          events.push({
            type: "usage",
            inputTokens: s.input_tokens,
            outputTokens: s.output_tokens,
            ...(s.cached === undefined ? {} : { cacheReadTokens: s.cached }),
          });
        }
        if (line.status === "success") return [...events, ...end("completed")];
        const message = line.error?.message ?? lastError ?? `${cli} reported an error.`;
        events.push(...failure(message));
        return [...events, ...(limited ? end("limited", limited) : end("failed", message))];
      }
    }
    return events;
  };

  return {
    push(raw: string): ParsedEvent[] {
      return jsonLineEvents({ ...LINES, cli }, raw, onLine);
    },

    finish(exit): ParsedEvent[] {
      const events = flush();
      if (ended) return events;
      const exitCode = exit.exitCode ?? null;
      const stderr = meaningfulStderr(exit.stderrTail);
      if (limited) return [...events, ...end("limited", limited, exitCode)];
      if (exit.signal) {
        ended = true;
        const reason = `${cli} was stopped (${exit.signal}).`;
        return [...events, { type: "turn_end", outcome: "interrupted", reason, exitCode }];
      }
      if (exit.exitCode === AUTH_EXIT_CODE || NOT_LOGGED_IN_PATTERN.test(stderr)) {
        return [
          ...events,
          { type: "error", kind: "not_logged_in", message: notLoggedIn },
          ...end("failed", notLoggedIn, exitCode),
        ];
      }
      if (UNTRUSTED_FOLDER_PATTERN.test(stderr)) {
        const message = `${cli} does not run in a folder it does not trust. Trust this repository with \`offrun trust\` (Offrun then tells ${cli} to skip its own check), or trust the folder in ${cli} itself.`;
        return [...events, { type: "error", kind: "process_failed", message }, ...end("failed", message, exitCode)];
      }
      const reason = lastError ?? (stderr || `${cli} exited with code ${String(exit.exitCode)} without a result.`);
      events.push(...(lastError === undefined ? [] : failure(lastError)));
      if (limited) return [...events, ...end("limited", limited, exitCode)];
      if (lastError === undefined) events.push({ type: "error", kind: "process_failed", message: reason });
      return [...events, ...end("failed", reason, exitCode)];
    },
  };
}

/** 0.61.0, headless, in a folder it does not trust: "Gemini CLI is not running in a trusted directory. To proceed, ..." */
const UNTRUSTED_FOLDER_PATTERN = /not running in a trusted directory/i;

/** Sorts a Gemini failure text into our fixed kinds. */
export function classifyGeminiFailure(message: string): ErrorKind {
  if (NOT_LOGGED_IN_PATTERN.test(message) || /\b401\b/.test(message)) return "not_logged_in";
  if (parseGeminiLimitText(message, new Date())) return "usage_limit";
  // A retryable 429 that outlived its attempts: "Resource has been exhausted (e.g. check quota)."
  if (/\b429\b|RESOURCE_EXHAUSTED|Resource has been exhausted|rate limit|too many requests/i.test(message)) {
    return "rate_limited";
  }
  return "process_failed";
}

/** The end of stderr without the notices every run prints (terminal colours, ripgrep, startup metrics). */
function meaningfulStderr(tail: string): string {
  const lines = tail
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !/^Warning: 256-color|^Ripgrep is not available|^\[STARTUP\]/.test(l));
  return lines.slice(-5).join("\n").slice(-1_000);
}
