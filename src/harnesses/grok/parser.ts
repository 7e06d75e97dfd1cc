import type { ParsedEvent } from "../../core/foundation/events.js";
import { parseProviderLimitText } from "../shared/provider-limit-text.js";
import type { StreamParser } from "../types.js";
import { isFreeUsageExhausted } from "./limits.js";
import { grokLineSchema, type GrokLine } from "./stream-schema.js";

/**
 * Grok Build's streaming-json → our events, as its user guide documents them (14-headless-mode.md;
 * not observed here, see stream-schema.ts): text deltas are joined into whole messages, the
 * session id and usage come from the terminal `end`, and a cancelled end (headless runs cancel
 * every permission prompt) is a denial and a failed turn that says how to get approvals.
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
    const stop = (line.stopReason ?? "end_turn").toLowerCase();
    if (/cancel/.test(stop)) {
      // Headless Grok answers every permission prompt "cancelled" (headless.rs), so a one-way turn
      // Offrun did not stop ends cancelled only where the agent needed an approval.
      const reason =
        "Grok Build stopped at a permission prompt, which a headless run answers with cancel. Run the turn live (approvals over `grok agent stdio`).";
      events.push({ type: "denial", tool: "unknown", input: null }, { type: "turn_end", outcome: "failed", reason });
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
      // headless.rs `auth_required_message`: "Not signed in. …", several lines on stderr.
      const signedOut = /\bNot signed in\b[^]*/.exec(`${lastError ?? ""}\n${exit.stderrTail}`)?.[0];
      if (signedOut) {
        return [
          ...flush(),
          { type: "error", kind: "not_logged_in", message: `Grok Build is not signed in: ${signedOut.trim()}` },
          { type: "turn_end", outcome: "failed", reason: signedOut.trim(), exitCode: exit.exitCode ?? null },
        ];
      }
      // The free tier's exhaustion (limits.ts) has no reset; a provider's wording that names one
      // ("usage limit", "quota exceeded") is a limit too, any other 429 a transient rate limit.
      const limit = isFreeUsageExhausted(reason) ? {} : parseProviderLimitText(reason, new Date());
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
