import type { ParsedEvent, QuotaWindow } from "../../core/foundation/events.js";
import type { StreamParser } from "../types.js";
import { parseClaudeLimitText } from "../shared/claude-limit-text.js";
import {
  KNOWN_LINE_TYPES,
  claudeLineSchema,
  lineTypeSchema,
  type ClaudeAssistantLine,
  type ClaudeContentBlock,
  type ClaudeResultLine,
  type RateLimitInfo,
} from "./stream-schema.js";

const QUOTA_SOURCE = "claude-stream";
const NOT_LOGGED_IN_MESSAGE = "Not logged in to Claude Code. Run `claude` in a terminal and log in, then try again.";
/** What 2.1.332 says in a result's `errors` when `--resume` names a session it does not have. */
const NO_CONVERSATION_PATTERN = /^No conversation found with session ID: (\S+)/;
/** What 2.1.332 prints (as a synthetic assistant message and as the result) with no credentials. */
const NOT_LOGGED_IN_PATTERN = /not logged in|please run \/login|invalid api key|authentication_failed/i;

/** A parser for one turn of `claude -p --output-format stream-json --verbose`. */
export function createClaudeParser(): StreamParser {
  let ended = false;
  let limitSeen = false;
  let notLoggedIn = false;
  let sessionId: string | undefined;

  function limitHit(message: string, resetsAt: string | undefined, window: string | undefined): ParsedEvent[] {
    // 2.1.332 reports a rejected limit twice (rate_limit_event, then the synthetic text): say it once.
    if (limitSeen) return [];
    limitSeen = true;
    return [{ type: "limit_hit", message, resetsAt, window }];
  }

  function fromRateLimit(info: RateLimitInfo): ParsedEvent[] {
    const windows = quotaWindows(info, new Date().toISOString());
    const events: ParsedEvent[] = windows.length > 0 ? [{ type: "quota", windows }] : [];
    if (info.status === "rejected") {
      const resetsAt = info.resetsAt ? new Date(info.resetsAt * 1000).toISOString() : undefined;
      const window = info.rateLimitType ?? undefined;
      events.push(...limitHit(`Claude usage limit reached${window ? ` (${window})` : ""}.`, resetsAt, window));
    }
    return events;
  }

  function fromAssistant(line: ClaudeAssistantLine): ParsedEvent[] {
    const events: ParsedEvent[] = [];
    // Synthetic messages (model "<synthetic>", `error` set) carry the CLI's own failure text, not the model's.
    const synthetic = line.error !== undefined || line.message.model === "<synthetic>";
    for (const block of line.message.content) {
      if (block.type === "tool_use" && "id" in block && "name" in block) {
        events.push({ type: "tool_call", id: block.id, name: block.name, input: block.input });
      } else if (block.type === "text" && "text" in block) {
        events.push(...(synthetic ? fromFailureText(block.text, line) : [{ type: "text" as const, text: block.text }]));
      }
    }
    return events;
  }

  function fromFailureText(text: string, line: ClaudeAssistantLine): ParsedEvent[] {
    const limit = parseClaudeLimitText(text, new Date());
    if (limit?.severity === "limit") return limitHit(text, limit.resetsAt, limit.window);
    if (limit?.severity === "warning") return [{ type: "notice", level: "warning", message: text }];
    if (line.error === "authentication_failed" || NOT_LOGGED_IN_PATTERN.test(text)) {
      notLoggedIn = true;
      return [{ type: "error", kind: "not_logged_in", message: NOT_LOGGED_IN_MESSAGE }];
    }
    if (line.api_error_status === 429 || line.error === "rate_limit") {
      return [{ type: "error", kind: "rate_limited", message: text }];
    }
    return [{ type: "error", kind: "process_failed", message: text }];
  }

  function fromResult(line: ClaudeResultLine): ParsedEvent[] {
    const events: ParsedEvent[] = [];
    if (line.session_id && line.session_id !== sessionId) {
      sessionId = line.session_id;
      events.push({ type: "session", sessionId: line.session_id });
    }
    if (line.usage) {
      events.push({
        type: "usage",
        inputTokens: line.usage.input_tokens,
        outputTokens: line.usage.output_tokens,
        cacheReadTokens: line.usage.cache_read_input_tokens,
        cacheWriteTokens: line.usage.cache_creation_input_tokens,
        costUsd: line.total_cost_usd,
      });
    }
    // With --json-schema the answer is the StructuredOutput tool's input, not assistant text:
    // it becomes the turn's final text, so a caller reads every CLI's structured answer alike.
    if (line.structured_output !== undefined) {
      events.push({ type: "text", text: JSON.stringify(line.structured_output) });
    }
    for (const denial of line.permission_denials ?? []) {
      events.push({ type: "denial", tool: denial.tool_name, input: denial.tool_input });
    }
    ended = true;
    // 2.1.332 says subtype "success" with is_error true after an API failure: only is_error counts.
    if (!line.is_error) {
      events.push({ type: "turn_end", outcome: "completed" });
      return events;
    }
    const said = line.result ?? line.terminal_reason ?? line.errors?.join(" ") ?? "Claude reported an error.";
    // The session to resume is not in this login's home (a CLI ended before it wrote any, or it
    // was deleted): the turn chain starts a new session with the conversation so far.
    const missing = line.errors?.map((e) => NO_CONVERSATION_PATTERN.exec(e)?.[1]).find(Boolean);
    if (missing !== undefined) {
      events.push({
        type: "error",
        kind: "not_found",
        message: `Claude Code has no conversation ${missing} in this login's home to resume.`,
      });
    }
    const limit = line.result === undefined ? undefined : parseClaudeLimitText(line.result, new Date());
    if (limit?.severity === "limit" || line.api_error === "usage_limit_reached") {
      events.push(...limitHit(said, limit?.resetsAt, limit?.window));
    }
    if (!notLoggedIn && NOT_LOGGED_IN_PATTERN.test(said)) {
      notLoggedIn = true;
      events.push({ type: "error", kind: "not_logged_in", message: NOT_LOGGED_IN_MESSAGE });
    }
    const reason = notLoggedIn ? NOT_LOGGED_IN_MESSAGE : said;
    events.push({ type: "turn_end", outcome: limitSeen ? "limited" : "failed", reason });
    return events;
  }

  function parse(raw: string): ParsedEvent[] {
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      return [unreadable("Claude printed a line that is not JSON", raw)];
    }
    const typed = lineTypeSchema.safeParse(json);
    if (!typed.success) return [unreadable("Claude printed JSON without a type", raw)];
    if (!KNOWN_LINE_TYPES.has(typed.data.type)) return [];
    const parsed = claudeLineSchema.safeParse(json);
    if (!parsed.success) return [unreadable(`Claude printed a "${typed.data.type}" line in an unexpected shape`, raw)];
    const line = parsed.data;
    switch (line.type) {
      case "system":
        if (line.subtype === "init" && line.session_id) {
          sessionId = line.session_id;
          return [{ type: "session", sessionId: line.session_id, model: line.model }];
        }
        if (line.subtype === "api_retry") {
          const status = line.error_status ? `HTTP ${line.error_status}` : "an API error";
          const delay = line.retry_delay_ms === undefined ? "" : ` in ${Math.round(line.retry_delay_ms / 1000)}s`;
          const attempt = line.attempt ?? 1;
          const of = line.max_retries === undefined ? "" : ` of ${line.max_retries}`;
          return [{ type: "retry", attempt, message: `Claude got ${status}; retry ${attempt}${of}${delay}.` }];
        }
        return []; // permission_denied, hooks, compaction: the result's permission_denials cover denials
      case "assistant":
        return fromAssistant(line);
      case "user":
        return typeof line.message.content === "string" ? [] : line.message.content.flatMap(toolResult);
      case "rate_limit_event":
        return fromRateLimit(line.rate_limit_info);
      case "result":
        return fromResult(line);
    }
  }

  return {
    push(raw) {
      if (raw.trim() === "") return [];
      return parse(raw);
    },
    finish(exit) {
      if (ended) return [];
      ended = true;
      const tail = exit.stderrTail.trim();
      const events: ParsedEvent[] = [];
      if (!notLoggedIn && NOT_LOGGED_IN_PATTERN.test(tail)) {
        notLoggedIn = true;
        events.push({ type: "error", kind: "not_logged_in", message: NOT_LOGGED_IN_MESSAGE });
      }
      const how = exit.signal ? `was ended by ${exit.signal}` : `exited with code ${exit.exitCode ?? "unknown"}`;
      const reason = notLoggedIn
        ? NOT_LOGGED_IN_MESSAGE
        : `Claude ${how} without a result${tail ? `: ${lastLines(tail)}` : "."}`;
      events.push({
        type: "turn_end",
        outcome: limitSeen ? "limited" : "failed",
        reason,
        exitCode: exit.exitCode ?? null,
      });
      return events;
    },
  };
}

function toolResult(block: ClaudeContentBlock): ParsedEvent[] {
  if (block.type !== "tool_result" || !("tool_use_id" in block)) return [];
  const output =
    typeof block.content === "string"
      ? block.content
      : (block.content ?? []).map((part) => part.text ?? `[${part.type}]`).join("\n");
  return [{ type: "tool_result", id: block.tool_use_id, output, isError: block.is_error === true }];
}

/** Our windows from one rate_limit_event; utilization is 0..1 in 2.1.332 (0.95 for 95%). */
export function quotaWindows(info: RateLimitInfo, observedAt: string): QuotaWindow[] {
  const status = (value: RateLimitInfo["status"] | undefined): QuotaWindow["status"] =>
    value === undefined ? undefined : value === "allowed_warning" ? "warning" : value;
  const percent = (utilization: number | undefined) =>
    utilization === undefined ? undefined : Math.min(100, Math.max(0, utilization * 100));
  const iso = (epoch: number | null | undefined) => (epoch ? new Date(epoch * 1000).toISOString() : undefined);

  const windows: QuotaWindow[] = [];
  for (const [kind, window] of Object.entries(info.unifiedWindows ?? {})) {
    if (!window) continue;
    // The window's own status says "allowed" where the event as a whole warns (95% used): keep the worse.
    const overall = kind === info.rateLimitType ? status(info.status) : undefined;
    windows.push({
      kind,
      usedPercent: percent(window.utilization),
      resetsAt: iso(window.resetsAt),
      status: worse(status(window.status), overall),
      source: QUOTA_SOURCE,
      observedAt,
    });
  }
  // The event always describes its representative window; add it when unifiedWindows did not.
  const kind = info.rateLimitType;
  if (kind && !windows.some((w) => w.kind === kind)) {
    windows.push({
      kind,
      usedPercent: percent(info.utilization),
      resetsAt: iso(info.resetsAt),
      status: status(info.status),
      source: QUOTA_SOURCE,
      observedAt,
    });
  }
  return windows;
}

const SEVERITY = { allowed: 0, warning: 1, rejected: 2 } as const;

function worse(a: QuotaWindow["status"], b: QuotaWindow["status"]): QuotaWindow["status"] {
  if (a === undefined || b === undefined) return a ?? b;
  return SEVERITY[a] >= SEVERITY[b] ? a : b;
}

function unreadable(what: string, raw: string): ParsedEvent {
  const start = raw.length > 200 ? `${raw.slice(0, 200)}…` : raw;
  return { type: "error", kind: "unreadable_output", message: `${what}: ${start}` };
}

function lastLines(text: string): string {
  return text.split("\n").slice(-5).join("\n").slice(-1_000);
}
