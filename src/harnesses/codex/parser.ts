import type { ParsedEvent } from "../../core/foundation/events.js";
import type { ErrorKind } from "../../core/foundation/errors.js";
import type { StreamParser } from "../types.js";
import { parseCodexLimitText } from "../shared/codex-limit-text.js";
import {
  CODEX_ITEM_TYPES,
  CODEX_LINE_TYPES,
  codexEnvelopeSchema,
  codexItemSchema,
  codexLineSchema,
  type CodexItem,
  type CodexLine,
} from "./stream-schema.js";
import { jsonLineEvents, unreadableLine } from "../shared/json-lines.js";
import { readCodexRolloutSync, refusedWritesInRollout, refusedWritesInStderr } from "./refused-writes.js";

const LINES = { cli: "Codex", envelope: codexEnvelopeSchema, knownTypes: CODEX_LINE_TYPES, line: codexLineSchema };

/** What to tell a person whose Codex home has no login (0.171.0 never says so itself). */
export const CODEX_NOT_LOGGED_IN_MESSAGE =
  "Codex is not logged in. Run `codex login` (or set an API key) and try again.";

/**
 * A parser for one `codex exec --json` turn. `now` is injectable so limit texts with a clock
 * time resolve deterministically in tests. `home` is the turn's CODEX_HOME: with it, finish()
 * reads the thread's rollout for writes the sandbox refused (see refused-writes.ts).
 */
export function createCodexParser(options: { now?: () => Date; home?: string } = {}): StreamParser {
  const now = options.now ?? (() => new Date());
  let threadId: string | undefined;
  const announced = new Set<string>(); // item ids whose tool_call was already emitted
  let ended = false;
  let limited: string | undefined; // the limit text, once one arrived
  let lastError: string | undefined;
  let retries = 0;

  const end = (
    outcome: "completed" | "failed" | "limited",
    reason?: string,
    exitCode?: number | null,
  ): ParsedEvent[] => {
    if (ended) return [];
    ended = true;
    return [
      {
        type: "turn_end",
        outcome,
        ...(reason === undefined ? {} : { reason }),
        ...(exitCode === undefined ? {} : { exitCode }),
      },
    ];
  };

  const onError = (message: string): ParsedEvent[] => {
    // "Reconnecting... 2/5 (...)" and "Reconnecting... waiting for network (...)" are Codex's own retries.
    const reconnect = /^Reconnecting\.\.\.\s*(?:(\d+)\/\d+)?/.exec(message);
    if (reconnect) {
      retries = reconnect[1] === undefined ? retries + 1 : Number(reconnect[1]);
      return [{ type: "retry", attempt: retries, message }];
    }
    const limit = parseCodexLimitText(message, now());
    if (limit) {
      if (limited) return []; // turn.failed repeats the same text
      limited = message;
      return [{ type: "limit_hit", message, ...limit }];
    }
    lastError = message;
    return [];
  };

  const onLine = (line: CodexLine): ParsedEvent[] => {
    switch (line.type) {
      case "thread.started":
        threadId = line.thread_id;
        return [{ type: "session", sessionId: line.thread_id }];
      case "turn.started":
        return [];
      case "turn.completed": {
        const u = line.usage;
        const usage: ParsedEvent[] = u
          ? [
              {
                type: "usage",
                inputTokens: u.input_tokens,
                outputTokens: u.output_tokens,
                ...(u.cached_input_tokens === undefined ? {} : { cacheReadTokens: u.cached_input_tokens }),
                ...(u.cache_write_input_tokens === undefined ? {} : { cacheWriteTokens: u.cache_write_input_tokens }),
              },
            ]
          : [];
        return [...usage, ...end("completed")];
      }
      case "turn.failed": {
        const message = line.error.message;
        const fromLimit = onError(message);
        if (limited) return [...fromLimit, ...end("limited", limited)];
        return [
          { type: "error", kind: classifyFailure(message), message: describeFailure(message) },
          ...end("failed", message),
        ];
      }
      case "error":
        return onError(line.message);
      case "item.started":
      case "item.updated":
      case "item.completed":
        return onItem(line.type, line.item);
    }
  };

  const onItem = (phase: "item.started" | "item.updated" | "item.completed", raw: { type: string }): ParsedEvent[] => {
    if (!CODEX_ITEM_TYPES.includes(raw.type)) return []; // reasoning, todo_list, newer kinds
    const parsed = codexItemSchema.safeParse(raw);
    if (!parsed.success) return [unreadable(`a ${raw.type} item Offrun cannot read: ${parsed.error.message}`)];
    const item = parsed.data;
    if (item.type === "agent_message" || item.type === "error") {
      if (phase !== "item.completed") return [];
      // An error item is often harmless ("Model metadata ... not found", "Falling back from WebSockets").
      return item.type === "agent_message"
        ? [{ type: "text", text: item.text }]
        : [{ type: "notice", level: "warning", message: item.message }];
    }
    const events: ParsedEvent[] = [];
    if (!announced.has(item.id)) {
      announced.add(item.id);
      events.push(toolCall(item));
    }
    if (phase === "item.completed" && item.type !== "web_search") events.push(toolResult(item));
    return events;
  };

  const finishTurn = (exit: Parameters<StreamParser["finish"]>[0]): ParsedEvent[] => {
    if (ended) return [];
    const stderr = meaningfulStderr(exit.stderrTail);
    if (limited) return end("limited", limited, exit.exitCode ?? null);
    if (exit.signal)
      return [
        {
          type: "turn_end",
          outcome: "interrupted",
          reason: `Codex was stopped (${exit.signal}).`,
          exitCode: exit.exitCode ?? null,
        },
      ];
    if (/not logged in|no codex credentials|run `?codex login/i.test(stderr)) {
      return [
        { type: "error", kind: "not_logged_in", message: CODEX_NOT_LOGGED_IN_MESSAGE },
        ...end("failed", CODEX_NOT_LOGGED_IN_MESSAGE, exit.exitCode ?? null),
      ];
    }
    const reason =
      lastError ??
      (stderr === "" ? `Codex exited with code ${String(exit.exitCode)} before finishing the turn.` : stderr);
    const kind = lastError === undefined ? "process_failed" : classifyFailure(lastError);
    return [{ type: "error", kind, message: describeFailure(reason) }, ...end("failed", reason, exit.exitCode ?? null)];
  };

  return {
    push(text: string): ParsedEvent[] {
      return jsonLineEvents(LINES, text, onLine);
    },

    finish(exit): ParsedEvent[] {
      // Refused writes are only known once Codex has exited, often after turn.completed: they come
      // first here, and after the turn_end when the stream already ended the turn.
      const lines = options.home && threadId ? readCodexRolloutSync(options.home, threadId) : undefined;
      const refused = lines ? refusedWritesInRollout(lines) : refusedWritesInStderr(exit.stderrTail);
      return [...refused, ...finishTurn(exit)];
    },
  };
}

/** Sorts a Codex failure text into our fixed kinds. */
export function classifyFailure(message: string): ErrorKind {
  // 0.171.0 sends requests without a key when logged out and reports the server's 401.
  if (/\b401\b|unauthorized|not logged in|no codex credentials/i.test(message)) return "not_logged_in";
  if (/refresh token|token (?:has )?expired|sign in again|log in again/i.test(message)) return "auth_expired";
  if (parseCodexLimitText(message, new Date())) return "usage_limit";
  if (/\b429\b|too many requests|rate limit/i.test(message)) return "rate_limited";
  return "process_failed";
}

function describeFailure(message: string): string {
  const kind = classifyFailure(message);
  if (kind === "not_logged_in") return CODEX_NOT_LOGGED_IN_MESSAGE;
  if (kind === "auth_expired") return "Codex's login has expired. Run `codex login` again.";
  if (kind === "rate_limited") return `Codex was rate limited and gave up: ${message}`;
  return `Codex failed: ${message}`;
}

function toolCall(item: Exclude<CodexItem, { type: "agent_message" | "error" }>): ParsedEvent {
  switch (item.type) {
    case "command_execution":
      return { type: "tool_call", id: item.id, name: "shell", input: { command: item.command } };
    case "file_change":
      return { type: "tool_call", id: item.id, name: "file_change", input: { changes: item.changes } };
    case "mcp_tool_call":
      return { type: "tool_call", id: item.id, name: `${item.server}.${item.tool}`, input: item.arguments };
    case "web_search":
      return { type: "tool_call", id: item.id, name: "web_search", input: { query: item.query } };
  }
}

function toolResult(
  item: Extract<CodexItem, { type: "command_execution" | "file_change" | "mcp_tool_call" }>,
): ParsedEvent {
  const failed = item.status === "failed" || item.status === "declined";
  switch (item.type) {
    case "command_execution": {
      const code = item.exit_code;
      const exitNote =
        code === null || code === undefined || code === 0
          ? ""
          : `${item.aggregated_output.endsWith("\n") || item.aggregated_output === "" ? "" : "\n"}(exit code ${code})`;
      return {
        type: "tool_result",
        id: item.id,
        output: item.aggregated_output + exitNote,
        isError: failed || (code ?? 0) !== 0,
      };
    }
    case "file_change":
      return {
        type: "tool_result",
        id: item.id,
        output: item.changes.map((c) => `${c.kind} ${c.path}`).join("\n"),
        isError: failed,
      };
    case "mcp_tool_call": {
      const output = item.error?.message ?? (item.result === undefined ? "" : JSON.stringify(item.result));
      return { type: "tool_result", id: item.id, output, isError: failed || Boolean(item.error) };
    }
  }
}

function unreadable(what: string): ParsedEvent {
  return unreadableLine("Codex", what);
}

/** The end of stderr without the lines every run prints (stdin notice, websocket fallback logs). */
function meaningfulStderr(tail: string): string {
  const lines = tail
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && l !== "Reading additional input from stdin...");
  return lines.slice(-5).join("\n").slice(-1_000);
}
