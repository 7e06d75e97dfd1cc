import type { ParsedEvent } from "../../core/foundation/events.js";
import { parseProviderLimitText } from "../shared/provider-limit-text.js";
import type { StreamParser } from "../types.js";
import { grokLineSchema, type GrokLine } from "./stream-schema.js";

/**
 * Grok Build's streaming-json → our events. The shapes are documented, not observed (see
 * stream-schema.ts): text deltas are joined into whole messages, the session id and usage come
 * from the terminal `end`, and a stop at a permission prompt (headless runs cannot ask) is a
 * denial and a failed turn that says how to get approvals (a live turn).
 */
export function createGrokParser(): StreamParser {
  let text = "";
  let ended = false;
  let lastError: string | undefined;
  let toolCount = 0;

  const flush = (): ParsedEvent[] => {
    const events: ParsedEvent[] = text.trim() === "" ? [] : [{ type: "text", text }];
    text = "";
    return events;
  };

  const end = (line: Extract<GrokLine, { type: "end" }>): ParsedEvent[] => {
    ended = true;
    const events: ParsedEvent[] = [...flush()];
    if (line.sessionId) events.push({ type: "session", sessionId: line.sessionId });
    if (line.usage) {
      events.push({
        type: "usage",
        inputTokens: line.usage.input_tokens ?? 0,
        outputTokens: line.usage.output_tokens ?? 0,
        ...(line.usage.cache_read_input_tokens !== undefined
          ? { cacheReadTokens: line.usage.cache_read_input_tokens }
          : {}),
        ...(line.usage.cache_creation_input_tokens !== undefined
          ? { cacheWriteTokens: line.usage.cache_creation_input_tokens }
          : {}),
      });
    }
    const stop = (line.stopReason ?? "EndTurn").toLowerCase();
    if (/cancel/.test(stop) && line.cancellation_category === "permission_cancelled") {
      const reason =
        "Grok Build stopped at a permission prompt it cannot ask in a headless run. Run the turn live (approvals over `grok agent stdio`).";
      events.push({ type: "denial", tool: "unknown", input: null }, { type: "turn_end", outcome: "failed", reason });
    } else if (/cancel/.test(stop)) {
      events.push({ type: "turn_end", outcome: "cancelled", reason: "Grok Build cancelled the turn." });
    } else {
      events.push({ type: "turn_end", outcome: "completed" });
    }
    return events;
  };

  return {
    push(raw) {
      let json: unknown;
      try {
        json = JSON.parse(raw);
      } catch {
        return []; // not a stream line (a warning the CLI printed)
      }
      const parsed = grokLineSchema.safeParse(json);
      if (!parsed.success || ended) return [];
      const line = parsed.data;
      switch (line.type) {
        case "thought":
          return [];
        case "text":
          text += line.data;
          return [];
        case "tool_call": {
          const id = line.toolCallId ?? line.id ?? `grok-tool-${++toolCount}`;
          const name = line.toolName ?? line.title ?? "tool";
          return [...flush(), { type: "tool_call", id, name, input: line.rawInput ?? {} }];
        }
        case "tool_call_update": {
          if (line.status !== "completed" && line.status !== "failed") return [];
          const output = typeof line.rawOutput === "string" ? line.rawOutput : JSON.stringify(line.rawOutput ?? "");
          return [{ type: "tool_result", id: line.toolCallId, output, isError: line.status === "failed" }];
        }
        case "error":
          lastError = line.message;
          return [];
        case "end":
          return end(line);
      }
    },
    finish(exit) {
      if (ended) return flush();
      const reason =
        lastError ??
        (exit.stderrTail.trim().split("\n").slice(-3).join("\n") ||
          `Grok Build exited with code ${String(exit.exitCode)} before finishing the turn.`);
      // No usage-limit text of Grok Build itself is known (documentation only): the common
      // provider wordings ("usage limit", "quota exceeded", with a reset when they name one) are
      // a limit, any other 429 a transient rate limit. Live turns decide the same in acp/failures.ts.
      const limit = parseProviderLimitText(reason, new Date());
      if (limit) {
        return [
          ...flush(),
          { type: "limit_hit", message: reason, ...limit },
          { type: "turn_end", outcome: "limited", reason, exitCode: exit.exitCode ?? null },
        ];
      }
      const kind = /\b429\b|rate limit|too many requests/i.test(reason) ? "rate_limited" : "process_failed";
      return [
        ...flush(),
        { type: "error", kind, message: `Grok Build failed: ${reason}` },
        { type: "turn_end", outcome: "failed", reason, exitCode: exit.exitCode ?? null },
      ];
    },
  };
}
