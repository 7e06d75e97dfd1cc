import type { ErrorKind } from "../../core/foundation/errors.js";
import type { ParsedEvent } from "../../core/foundation/events.js";
import { clip, unreadableLine } from "../shared/json-lines.js";
import type { StreamParser } from "../types.js";
import { autoDeniedAdvice, DENIED_STEP, stderrDenials } from "./denials.js";
import { parseAgyLimitText } from "./limit-text.js";
import { AGY_EVENTS, agyEnvelopeSchema, agyLineSchema, type AgyLine, type AgyStep } from "./stream-schema.js";

const CLI = "Antigravity CLI";
export const AGY_NOT_SIGNED_IN = `${CLI} is not signed in. Run \`agy\` in a terminal with this login's home and sign in with Google, then try again.`;

/** What agy and its model server print when the home has no usable sign-in (T3 Code's auth probe matches the same words). */
const NOT_SIGNED_IN = /please sign in|not authenticated|authentication required|login required|UNAUTHENTICATED/i;

/** A stateful parser for one turn of `agy --output-format stream-json`. */
export function createAgyParser(options: { now?: () => Date } = {}): StreamParser & {
  /** Whether a tool step is running now (the model is not being called meanwhile). */
  toolRunning(): boolean;
} {
  const now = options.now ?? (() => new Date());
  const tools = new Map<number, { id: string; name: string; input: unknown; done: boolean }>();
  let text = "";
  let ended = false;
  let denied = false;
  const tokens = { input: 0, output: 0, cacheRead: 0, seen: false };

  const flush = (): ParsedEvent[] => {
    if (text === "") return [];
    const event: ParsedEvent = { type: "text", text };
    text = "";
    return [event];
  };

  const end = (
    outcome: "completed" | "failed" | "limited" | "cancelled",
    reason?: string,
    exitCode?: number | null,
  ) => {
    if (ended) return [];
    ended = true;
    return [
      {
        type: "turn_end" as const,
        outcome,
        ...(reason === undefined ? {} : { reason }),
        ...(exitCode === undefined ? {} : { exitCode }),
      },
    ];
  };

  const onStep = (step: AgyStep): ParsedEvent[] => {
    if (step.step_type === "agent_response") {
      text += step.text_delta ?? "";
      if (step.usage?.input_tokens !== undefined && step.usage.output_tokens !== undefined) {
        tokens.seen = true;
        tokens.input += step.usage.input_tokens;
        tokens.output += step.usage.output_tokens;
        tokens.cacheRead += step.usage.cache_read_tokens ?? 0;
      }
      return step.state === "DONE" ? flush() : [];
    }
    if (step.step_type !== "tool") return [];
    const events = flush();
    const index = step.step_index ?? tools.size;
    let call = tools.get(index);
    if (!call) {
      const name = step.tool_info?.name ?? step.tool_name ?? "tool";
      call = { id: `step-${index}`, name, input: step.tool_info?.parameters ?? {}, done: false };
      tools.set(index, call);
      events.push({ type: "tool_call", id: call.id, name: call.name, input: call.input });
    }
    if ((step.state === "DONE" || step.state === "ERROR") && !call.done) {
      call.done = true;
      const error = step.error ?? step.tool_info?.error;
      const output = asText(step.output ?? step.tool_info?.output ?? errorText(error) ?? "");
      const isError = step.state === "ERROR" || (error !== undefined && error !== null && error !== "");
      events.push({ type: "tool_result", id: call.id, output, isError });
      if (isError && DENIED_STEP.test(errorText(error) ?? output)) {
        denied = true;
        events.push({ type: "denial", tool: call.name, input: call.input });
      }
    }
    return events;
  };

  const onResult = (result: Extract<AgyLine, { event: "result" }>["result"]): ParsedEvent[] => {
    const events = flush();
    // The result's own usage counts the whole conversation: only a turn without step usage uses it.
    const u = tokens.seen
      ? { input_tokens: tokens.input, output_tokens: tokens.output, cache_read_tokens: tokens.cacheRead }
      : result.usage;
    if (u?.input_tokens !== undefined && u.output_tokens !== undefined) {
      events.push({
        type: "usage",
        inputTokens: u.input_tokens,
        outputTokens: u.output_tokens,
        ...(u.cache_read_tokens === undefined ? {} : { cacheReadTokens: u.cache_read_tokens }),
      });
    }
    if (!denied && result.denied_actions?.length) {
      denied = true;
      for (const a of result.denied_actions)
        events.push({ type: "denial", tool: a.display_name ?? a.action, input: { permission: a.action } });
    }
    switch (result.status) {
      case "SUCCESS":
        return [...events, ...end("completed")];
      case "CANCELED":
        return [...events, ...end("cancelled", `${CLI} cancelled the turn.`)];
      default: {
        // ERROR, and INTERRUPTED (agy stopped the turn itself: its print timeout, a server cut).
        const message = result.error || `${CLI} ended the turn with status ${result.status}.`;
        return [...events, ...failure(message)];
      }
    }
  };

  const failure = (message: string, exitCode?: number | null): ParsedEvent[] => {
    const limit = parseAgyLimitText(message, now());
    if (limit) {
      return [
        { type: "limit_hit", message, resetsAt: limit.resetsAt, window: limit.window },
        ...end("limited", message, exitCode),
      ];
    }
    const kind = classifyAgyFailure(message);
    const shown = kind === "not_logged_in" ? AGY_NOT_SIGNED_IN : `${CLI} failed: ${message}`;
    return [{ type: "error", kind, message: shown }, ...end("failed", shown, exitCode)];
  };

  const onLine = (line: AgyLine): ParsedEvent[] => {
    switch (line.event) {
      case "init": {
        const id = line.conversation_id ?? line.init?.conversation_id;
        return id ? [{ type: "session", sessionId: id }] : [];
      }
      case "step_update":
        return onStep(line.step_update);
      case "result":
        return onResult(line.result);
    }
  };

  return {
    toolRunning: () => [...tools.values()].some((t) => !t.done),

    push(raw: string): ParsedEvent[] {
      if (raw.trim() === "" || ended) return [];
      let json: unknown;
      try {
        json = JSON.parse(raw);
      } catch {
        // agy writes its own notices to stderr; a stray stdout line is kept, not fatal.
        return [unreadableLine(CLI, `a line that is not JSON: ${clip(raw)}`)];
      }
      const envelope = agyEnvelopeSchema.safeParse(json);
      if (!envelope.success) return [unreadableLine(CLI, `a line without an event: ${clip(raw)}`)];
      if (!(AGY_EVENTS as readonly string[]).includes(envelope.data.event)) return [];
      const line = agyLineSchema.safeParse(json);
      if (!line.success) return [unreadableLine(CLI, `a ${envelope.data.event} line Offrun cannot read: ${clip(raw)}`)];
      return onLine(line.data);
    },

    finish(exit): ParsedEvent[] {
      const events = flush();
      // Denials agy printed on stderr belong to the turn even when its result came first.
      if (!denied) events.push(...stderrDenials(exit.stderrTail));
      if (ended) return events;
      const exitCode = exit.exitCode ?? null;
      if (exit.signal) {
        ended = true;
        return [
          ...events,
          { type: "turn_end", outcome: "interrupted", reason: `${CLI} was stopped (${exit.signal}).`, exitCode },
        ];
      }
      const stderr = meaningfulStderr(exit.stderrTail);
      const advice = autoDeniedAdvice(exit.stderrTail);
      if (advice)
        return [
          ...events,
          { type: "error", kind: "process_failed", message: advice },
          ...end("failed", advice, exitCode),
        ];
      if (parseAgyLimitText(stderr, now()) || NOT_SIGNED_IN.test(stderr))
        return [...events, ...failure(stderr, exitCode)];
      const reason = stderr || `${CLI} exited with code ${String(exit.exitCode)} without a result.`;
      return [
        ...events,
        { type: "error", kind: "process_failed", message: reason },
        ...end("failed", reason, exitCode),
      ];
    },
  };
}

/** Sorts an agy failure text into our fixed kinds. */
export function classifyAgyFailure(message: string): ErrorKind {
  if (NOT_SIGNED_IN.test(message) || /\b401\b/.test(message)) return "not_logged_in";
  if (parseAgyLimitText(message, new Date())) return "usage_limit";
  // A 429 without a reset is the per-minute rate limit, which agy (1.2.1+) retries itself.
  if (/\b429\b|RESOURCE_EXHAUSTED|rate limit|too many requests/i.test(message)) return "rate_limited";
  return "process_failed";
}

/** A tool error's words: 1.2.3 sends `{"type":"TOOL_ERROR","message":…}`, older builds a string. */
function errorText(error: unknown): string | undefined {
  if (error === undefined || error === null || error === "") return undefined;
  if (typeof error === "object" && typeof (error as { message?: unknown }).message === "string") {
    return (error as { message: string }).message;
  }
  return asText(error);
}

function asText(value: unknown): string {
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return String(value);
  }
}

/** The end of stderr without agy's own progress notices. */
function meaningfulStderr(tail: string): string {
  const lines = tail
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !/^\[agy\] (?:print timeout|terminating \d+ background task)/.test(l));
  return lines.slice(-5).join("\n").slice(-1_000);
}
