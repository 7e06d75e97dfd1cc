import type { ErrorKind } from "../../core/foundation/errors.js";
import type { ParsedEvent } from "../../core/foundation/events.js";
import type { StreamParser } from "../types.js";
import { parsePiLimitText } from "./limit-text.js";
import {
  PI_LINE_TYPES,
  piEnvelopeSchema,
  piLineSchema,
  piToolResultSchema,
  type PiLine,
  type PiMessage,
} from "./stream-schema.js";
import { jsonLineEvents } from "../shared/json-lines.js";
import { exitTurnEnd, finishOnce } from "../shared/turn-end.js";

const LINES = { cli: "Pi", envelope: piEnvelopeSchema, knownTypes: PI_LINE_TYPES, line: piLineSchema };

/** What Pi answers for a tool it was not given (a Planner turn's write or bash): a refusal. */
const DENIAL = /^Tool \S+ not found/;

/**
 * A parser for one `pi -p --mode json` turn. Pi exits 0 after an API error, and an `agent_end`
 * is not final (an `auto_retry_start` may follow it and start the agent again), so the outcome is
 * decided in `finish` from the last assistant message seen. `now` is injectable for limit texts.
 */
export function createPiParser(options: { now?: () => Date } = {}): StreamParser {
  const now = options.now ?? (() => new Date());
  const announced = new Map<string, unknown>(); // tool call id → its input, once its tool_call was emitted
  let lastError: string | undefined; // the error of the newest assistant message, until one succeeds
  let answered = false;

  const onAssistant = (message: PiMessage): ParsedEvent[] => {
    const events: ParsedEvent[] = [];
    const parts =
      typeof message.content === "string" ? [{ type: "text", text: message.content }] : (message.content ?? []);
    const text = parts
      .filter((p) => p.type === "text")
      .map((p) => p.text ?? "")
      .join("");
    if (text !== "") events.push({ type: "text", text });
    for (const part of parts) {
      if (part.type !== "toolCall" || !part.id || announced.has(part.id)) continue;
      announced.set(part.id, part.arguments ?? {});
      events.push({ type: "tool_call", id: part.id, name: part.name ?? "tool", input: part.arguments ?? {} });
    }
    const u = message.usage;
    if (u && (u.input > 0 || u.output > 0)) {
      events.push({
        type: "usage",
        inputTokens: u.input,
        outputTokens: u.output,
        ...(u.cacheRead === undefined ? {} : { cacheReadTokens: u.cacheRead }),
        ...(u.cacheWrite === undefined ? {} : { cacheWriteTokens: u.cacheWrite }),
        ...(u.cost?.total === undefined ? {} : { costUsd: u.cost.total }),
      });
    }
    if (message.stopReason === "error" || message.stopReason === "aborted") {
      lastError = message.errorMessage ?? `Pi stopped with reason ${message.stopReason}.`;
    } else {
      lastError = undefined;
      answered = true;
    }
    return events;
  };

  const onLine = (line: PiLine): ParsedEvent[] => {
    switch (line.type) {
      case "session":
        return [{ type: "session", sessionId: line.id }];
      case "message_end":
        return line.message.role === "assistant" ? onAssistant(line.message) : [];
      case "tool_execution_start": {
        if (announced.has(line.toolCallId)) return [];
        announced.set(line.toolCallId, line.args ?? {});
        return [{ type: "tool_call", id: line.toolCallId, name: line.toolName, input: line.args ?? {} }];
      }
      case "tool_execution_end": {
        const parsed = piToolResultSchema.safeParse(line.result);
        const output = parsed.success ? parsed.data.content.map((c) => c.text ?? "").join("") : "";
        const denial: ParsedEvent[] =
          line.isError && DENIAL.test(output)
            ? [{ type: "denial", tool: line.toolName, input: announced.get(line.toolCallId) ?? {} }]
            : [];
        return [...denial, { type: "tool_result", id: line.toolCallId, output, isError: line.isError }];
      }
      case "auto_retry_start":
        return [{ type: "retry", attempt: line.attempt, message: line.errorMessage }];
      case "auto_retry_end":
        if (!line.success && line.finalError) lastError = line.finalError;
        return [];
      case "agent_start":
      case "agent_end":
      case "turn_start":
      case "turn_end":
      case "message_start":
      case "message_update":
      case "tool_execution_update":
        return [];
    }
  };

  const end = (...turnEnd: Parameters<typeof exitTurnEnd>): ParsedEvent[] => [exitTurnEnd(...turnEnd)];

  return {
    push(text: string): ParsedEvent[] {
      return jsonLineEvents(LINES, text, onLine);
    },

    finish: finishOnce((exit) => {
      if (exit.signal) return end("interrupted", `Pi was stopped (${exit.signal}).`, exit.exitCode);
      if (lastError !== undefined) {
        const limit = parsePiLimitText(lastError, now());
        if (limit)
          return [{ type: "limit_hit", message: lastError, ...limit }, ...end("limited", lastError, exit.exitCode)];
        const kind = classifyFailure(lastError);
        return [
          { type: "error", kind, message: describeFailure(lastError, kind) },
          ...end("failed", lastError, exit.exitCode),
        ];
      }
      const stderr = meaningfulStderr(exit.stderrTail);
      if (exit.exitCode !== 0 || !answered) {
        const reason =
          stderr || `Pi exited with code ${String(exit.exitCode)} ${answered ? "" : "without answering"}`.trim() + ".";
        const kind = classifyFailure(reason);
        return [
          { type: "error", kind, message: describeFailure(reason, kind) },
          ...end("failed", reason, exit.exitCode),
        ];
      }
      return end("completed", undefined, exit.exitCode);
    }),
  };
}

/** Sorts a Pi failure text into our fixed kinds (limit texts are handled before this). */
export function classifyFailure(message: string): ErrorKind {
  if (/^401\b|\b401 |unauthorized|no api key|no models available|use \/login/i.test(message)) return "not_logged_in";
  if (/^429\b|\b429 |too many requests|rate.?limit/i.test(message)) return "rate_limited";
  return "process_failed";
}

function describeFailure(message: string, kind: ErrorKind): string {
  if (kind === "not_logged_in") return `Pi is not signed in to its provider: ${message} Run \`pi\` and use /login.`;
  if (kind === "rate_limited") return `Pi was rate limited and gave up: ${message}`;
  return `Pi failed: ${message}`;
}

function meaningfulStderr(tail: string): string {
  const lines = tail
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "");
  return lines.slice(-5).join("\n").slice(-1_000);
}
