import type { ErrorKind } from "../../core/foundation/errors.js";
import type { ParsedEvent } from "../../core/foundation/events.js";
import type { StreamParser } from "../types.js";
import { parseOpencodeLimitText } from "./limit-text.js";
import {
  OPENCODE_LINE_TYPES,
  opencodeEnvelopeSchema,
  opencodeLineSchema,
  type OpencodeLine,
  type OpencodeToolState,
} from "./stream-schema.js";
import { jsonLineEvents } from "../shared/json-lines.js";
import { exitTurnEnd, finishOnce } from "../shared/turn-end.js";

const LINES = {
  cli: "OpenCode",
  envelope: opencodeEnvelopeSchema,
  knownTypes: OPENCODE_LINE_TYPES,
  line: opencodeLineSchema,
};

/**
 * Tool errors that mean OpenCode refused the call by itself: a `deny` rule, an `ask` that
 * `opencode run` auto-rejects (1.18.33 has no one to ask), or a tool the agent was not given.
 */
const DENIAL = /rule which prevents you from using|user rejected permission|unavailable tool/i;

/**
 * A parser for one `opencode run --format json` turn. OpenCode prints no final event: the
 * turn's outcome comes from `finish` (exit code, and the error events seen). `now` is injectable
 * so limit texts with a relative reset resolve deterministically in tests.
 */
export function createOpencodeParser(options: { now?: () => Date } = {}): StreamParser {
  const now = options.now ?? (() => new Date());
  const announced = new Set<string>(); // callIDs whose tool_call was already emitted
  let sessionId: string | undefined;
  let steps = 0;
  let limited: string | undefined;
  let failure: { message: string; kind: ErrorKind } | undefined;

  const onError = (line: Extract<OpencodeLine, { type: "error" }>): ParsedEvent[] => {
    const data = line.error.data;
    const message = data?.message ?? line.error.name ?? "OpenCode reported an error without a message.";
    const limit = parseOpencodeLimitText(message, now()) ?? parseOpencodeLimitText(data?.responseBody ?? "", now());
    if (limit) {
      if (limited) return [];
      limited = message;
      return [{ type: "limit_hit", message, ...limit }];
    }
    const kind = classifyFailure(message, data?.statusCode, line.error.name);
    failure = { message, kind };
    return [{ type: "error", kind, message: describeFailure(message, kind) }];
  };

  const onTool = (part: { tool: string; callID: string; state: OpencodeToolState }): ParsedEvent[] => {
    const events: ParsedEvent[] = [];
    const input = part.state.input ?? {};
    if (!announced.has(part.callID)) {
      announced.add(part.callID);
      events.push({ type: "tool_call", id: part.callID, name: part.tool, input });
    }
    const state = part.state;
    if (state.status === "completed") {
      events.push({ type: "tool_result", id: part.callID, output: state.output, isError: false });
    } else if (state.status === "error") {
      if (DENIAL.test(state.error)) events.push({ type: "denial", tool: part.tool, input });
      events.push({ type: "tool_result", id: part.callID, output: state.error, isError: true });
    }
    return events;
  };

  const onLine = (line: OpencodeLine): ParsedEvent[] => {
    const events: ParsedEvent[] = [];
    // Every line names the session; the first one is enough for resume.
    if (line.sessionID && line.sessionID !== sessionId) {
      sessionId = line.sessionID;
      events.push({ type: "session", sessionId });
    }
    switch (line.type) {
      case "step_start":
      case "reasoning":
        return events;
      case "text":
        return line.part.text === "" ? events : [...events, { type: "text", text: line.part.text }];
      case "tool_use":
        return [...events, ...onTool(line.part)];
      case "step_finish": {
        steps += 1;
        const t = line.part.tokens;
        if (!t) return events;
        return [
          ...events,
          {
            type: "usage",
            inputTokens: t.input,
            outputTokens: t.output,
            ...(t.cache ? { cacheReadTokens: t.cache.read, cacheWriteTokens: t.cache.write } : {}),
            ...(line.part.cost === undefined ? {} : { costUsd: line.part.cost }),
          },
        ];
      }
      case "error":
        return [...events, ...onError(line)];
    }
  };

  const end = (...turnEnd: Parameters<typeof exitTurnEnd>): ParsedEvent[] => [exitTurnEnd(...turnEnd)];

  return {
    push(text: string): ParsedEvent[] {
      return jsonLineEvents(LINES, text, onLine);
    },

    finish: finishOnce((exit) => {
      if (limited) return end("limited", limited, exit.exitCode);
      if (exit.signal) return end("interrupted", `OpenCode was stopped (${exit.signal}).`, exit.exitCode);
      // 1.18.33 exits 1 after an error event, but exit 0 with an error seen is still a failure.
      if (failure) return end("failed", failure.message, exit.exitCode);
      const stderr = meaningfulStderr(exit.stderrTail);
      if (exit.exitCode !== 0) {
        const reason = stderr || `OpenCode exited with code ${String(exit.exitCode)} before finishing the turn.`;
        return [
          { type: "error", kind: "process_failed", message: `OpenCode failed: ${reason}` },
          ...end("failed", reason, exit.exitCode),
        ];
      }
      if (steps === 0) {
        const reason = `OpenCode ended without answering${stderr ? `: ${stderr}` : "."}`;
        return [{ type: "error", kind: "process_failed", message: reason }, ...end("failed", reason, exit.exitCode)];
      }
      return end("completed", undefined, exit.exitCode);
    }),
  };
}

/** Sorts an OpenCode error into our fixed kinds (limit texts are handled before this). */
export function classifyFailure(message: string, statusCode?: number, name?: string): ErrorKind {
  if (statusCode === 401 || name === "ProviderAuthError" || /\b401\b|unauthorized|api key/i.test(message)) {
    return "not_logged_in";
  }
  if (statusCode === 429 || /\b429\b|too many requests|rate limit/i.test(message)) return "rate_limited";
  return "process_failed";
}

function describeFailure(message: string, kind: ErrorKind): string {
  if (kind === "not_logged_in")
    return `OpenCode is not signed in to its provider: ${message} Run \`opencode auth login\`.`;
  if (kind === "rate_limited") return `OpenCode was rate limited and gave up after its own retries: ${message}`;
  return `OpenCode failed: ${message}`;
}

/** The end of stderr without colour codes and OpenCode's permission notices. */
function meaningfulStderr(tail: string): string {
  const lines = tail
    // eslint-disable-next-line no-control-regex
    .replace(/\u001b\[[0-9;]*m/g, "")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !/permission requested: .*auto-rejecting/.test(l));
  return lines.slice(-5).join("\n").slice(-1_000);
}
