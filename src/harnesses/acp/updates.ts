import * as z from "zod";
import type { ParsedEvent } from "../../core/foundation/events.js";

/**
 * `session/update` notifications → our events. Mirrors the ACP v1 schema
 * (@agentclientprotocol/sdk 2.4.0, `SessionUpdate`), leniently: the SDK has already validated
 * what arrives live, and this parser also reads recorded fixtures, so it keeps only the fields
 * it uses and lets unknown update kinds pass as nothing.
 */

const contentBlock = z.object({ type: z.string(), text: z.string().optional() }).passthrough();
const toolContent = z
  .object({ type: z.string(), content: contentBlock.optional(), path: z.string().optional() })
  .passthrough();
const toolFields = {
  toolCallId: z.string(),
  title: z.string().nullish(),
  name: z.string().nullish(),
  kind: z.string().nullish(),
  status: z.string().nullish(),
  content: z.array(toolContent).nullish(),
  locations: z.array(z.object({ path: z.string() }).passthrough()).nullish(),
  rawInput: z.unknown().optional(),
  rawOutput: z.unknown().optional(),
};
const chunk = z.object({ sessionUpdate: z.literal("agent_message_chunk"), content: contentBlock });
const toolCall = z.object({ sessionUpdate: z.enum(["tool_call", "tool_call_update"]), ...toolFields });
const plan = z.object({
  sessionUpdate: z.literal("plan"),
  entries: z.array(z.object({ content: z.string(), status: z.string() }).passthrough()),
});
const usage = z.object({
  sessionUpdate: z.literal("usage_update"),
  used: z.number(),
  size: z.number(),
  cost: z.object({ amount: z.number(), currency: z.string() }).nullish(),
});
const notice = z.object({
  sessionUpdate: z.literal("notice"),
  severity: z.string().optional(),
  message: z.string().optional(),
});
const knownUpdate = z.union([chunk, toolCall, plan, usage, notice]);
type ToolUpdate = z.infer<typeof toolCall>;

/** The `usage` of a `session/prompt` response (ACP unstable `PromptResponse.usage`; OpenCode 1.18.33 sends it). */
const promptUsage = z.object({
  usage: z.object({
    inputTokens: z.number(),
    outputTokens: z.number(),
    cachedReadTokens: z.number().nullish(),
    cachedWriteTokens: z.number().nullish(),
  }),
});
/** Gemini CLI 0.61.0 puts the turn's tokens in the response's `_meta.quota.token_count` instead. */
const geminiQuotaUsage = z.object({
  _meta: z.object({
    quota: z.object({ token_count: z.object({ input_tokens: z.number(), output_tokens: z.number() }) }),
  }),
});

/** The turn's token usage from a `session/prompt` response, when the agent reports one. */
export function promptUsageEvent(response: unknown): ParsedEvent | undefined {
  const standard = promptUsage.safeParse(response);
  if (standard.success) {
    const { inputTokens, outputTokens, cachedReadTokens, cachedWriteTokens } = standard.data.usage;
    return {
      type: "usage",
      inputTokens,
      outputTokens,
      ...(cachedReadTokens != null ? { cacheReadTokens: cachedReadTokens } : {}),
      ...(cachedWriteTokens != null ? { cacheWriteTokens: cachedWriteTokens } : {}),
    };
  }
  const gemini = geminiQuotaUsage.safeParse(response);
  if (!gemini.success) return undefined;
  const count = gemini.data._meta.quota.token_count;
  return { type: "usage", inputTokens: count.input_tokens, outputTokens: count.output_tokens };
}

export interface AcpUpdateMapper {
  /** One `update` (the params' `update` field) in; the events it completes out. */
  push(update: unknown): ParsedEvent[];
  /** The text still being streamed as one message, and calls not yet announced (call before the turn ends). */
  flush(): ParsedEvent[];
  /** The agent's tool calls that never reported an end (shown as unfinished when the turn ends). */
  openToolCalls(): string[];
}

const FINISHED = new Set(["completed", "failed"]);

interface PendingCall {
  name: string;
  input: unknown;
  announced: boolean;
  finished: boolean;
}

function hasInput(value: unknown): boolean {
  return value !== undefined && value !== null && !(typeof value === "object" && Object.keys(value).length === 0);
}

/**
 * One mapper per turn: it coalesces message chunks into whole messages, and announces a tool
 * call once its input is known. OpenCode 1.18.33 sends `tool_call` with an empty `rawInput` and
 * the input in the next `tool_call_update`; Gemini CLI 0.61.0 sends no `tool_call` at all, only
 * the permission request and a final `tool_call_update`.
 */
export function createAcpUpdateMapper(): AcpUpdateMapper {
  let text = "";
  const calls = new Map<string, PendingCall>();

  const flushText = (): ParsedEvent[] => {
    const events: ParsedEvent[] = text.trim() === "" ? [] : [{ type: "text", text }];
    text = "";
    return events;
  };
  const announce = (id: string, call: PendingCall): ParsedEvent[] => {
    if (call.announced) return [];
    call.announced = true;
    return [{ type: "tool_call", id, name: call.name, input: call.input }];
  };

  const tool = (update: ToolUpdate): ParsedEvent[] => {
    const call = calls.get(update.toolCallId) ?? { name: "tool", input: {}, announced: false, finished: false };
    calls.set(update.toolCallId, call);
    const name = update.name || update.kind || update.title;
    if (name && (call.name === "tool" || !call.announced)) call.name = name;
    if (hasInput(update.rawInput)) call.input = update.rawInput;
    else if (!hasInput(call.input) && (update.title || update.locations?.length)) {
      call.input = { title: update.title, locations: update.locations?.map((l) => l.path) };
    }
    const events: ParsedEvent[] = [];
    const started = update.status && update.status !== "pending";
    if (hasInput(update.rawInput) || started) events.push(...announce(update.toolCallId, call));
    if (update.status && FINISHED.has(update.status) && !call.finished) {
      call.finished = true;
      events.push({
        type: "tool_result",
        id: update.toolCallId,
        output: toolOutput(update),
        isError: update.status === "failed",
      });
    }
    return events;
  };

  return {
    // Calls still waiting for their input are announced with what is known, so none is lost.
    flush: () => [...flushText(), ...[...calls].flatMap(([id, call]) => announce(id, call))],
    openToolCalls: () => [...calls].filter(([, call]) => !call.finished).map(([id]) => id),
    push(raw) {
      const parsed = knownUpdate.safeParse(raw);
      if (!parsed.success) return []; // thoughts, mode and command lists, unknown kinds
      const update = parsed.data;
      switch (update.sessionUpdate) {
        case "agent_message_chunk":
          if (update.content.type === "text" && update.content.text) text += update.content.text;
          return [];
        case "tool_call":
        case "tool_call_update":
          return [...flushText(), ...tool(update)];
        case "plan":
          return [...flushText(), { type: "notice", level: "info", message: planText(update.entries) }];
        case "usage_update":
          // ACP reports tokens in context (`used`), not per-call input/output: logged as input.
          return [
            {
              type: "usage",
              inputTokens: update.used,
              outputTokens: 0,
              ...(update.cost?.currency === "USD" ? { costUsd: update.cost.amount } : {}),
            },
          ];
        case "notice":
          if (!update.message) return [];
          return [
            ...flushText(),
            { type: "notice", level: update.severity === "info" ? "info" : "warning", message: update.message },
          ];
      }
    },
  };
}

function planText(entries: { content: string; status: string }[]): string {
  const mark = (status: string) => (status === "completed" ? "[x]" : status === "in_progress" ? "[~]" : "[ ]");
  return ["Plan:", ...entries.map((e) => `${mark(e.status)} ${e.content}`)].join("\n");
}

/** What a finished tool call produced: its text content, else a diff's path, else its raw output. */
function toolOutput(update: ToolUpdate): string {
  const parts = (update.content ?? []).flatMap((item) => {
    if (item.type === "content" && item.content?.text) return [item.content.text];
    if (item.type === "diff" && item.path) return [`Edited ${item.path}`];
    return [];
  });
  if (parts.length > 0) return parts.join("\n");
  if (update.rawOutput === undefined || update.rawOutput === null) return update.title ?? "";
  return typeof update.rawOutput === "string" ? update.rawOutput : JSON.stringify(update.rawOutput);
}
