import * as z from "zod";

/**
 * The lines `codex exec --json` prints (0.171.0). Source of truth: `openai/codex`
 * sdk/typescript/src/events.ts and items.ts (the SDK parses this same stream).
 * Objects are loose: newer builds add fields, and an unknown field must not make a line unreadable.
 */

const usage = z.looseObject({
  input_tokens: z.number(),
  cached_input_tokens: z.number().optional(),
  cache_write_input_tokens: z.number().optional(),
  output_tokens: z.number(),
  reasoning_output_tokens: z.number().optional(),
});

const id = z.string();

/** The item types Offrun shows; others (reasoning, todo lists, future kinds) are skipped. */
export const codexItemSchema = z.discriminatedUnion("type", [
  z.looseObject({ id, type: z.literal("agent_message"), text: z.string() }),
  z.looseObject({
    id,
    type: z.literal("command_execution"),
    command: z.string(),
    aggregated_output: z.string().default(""),
    exit_code: z.number().nullable().optional(),
    status: z.string(),
  }),
  z.looseObject({
    id,
    type: z.literal("file_change"),
    changes: z.array(z.looseObject({ path: z.string(), kind: z.string() })),
    status: z.string(),
  }),
  z.looseObject({
    id,
    type: z.literal("mcp_tool_call"),
    server: z.string(),
    tool: z.string(),
    arguments: z.unknown().optional(),
    result: z.unknown().optional(),
    error: z.looseObject({ message: z.string() }).nullable().optional(),
    status: z.string(),
  }),
  z.looseObject({ id, type: z.literal("web_search"), query: z.string() }),
  z.looseObject({ id, type: z.literal("error"), message: z.string() }),
]);
export type CodexItem = z.infer<typeof codexItemSchema>;
export const CODEX_ITEM_TYPES: readonly string[] = codexItemSchema.options.map((o) => o.shape.type.value);

const itemEnvelope = z.looseObject({ id: z.string(), type: z.string() });

export const codexLineSchema = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("thread.started"), thread_id: z.string() }),
  z.looseObject({ type: z.literal("turn.started") }),
  z.looseObject({ type: z.literal("turn.completed"), usage: usage.optional() }),
  z.looseObject({ type: z.literal("turn.failed"), error: z.looseObject({ message: z.string() }) }),
  z.looseObject({ type: z.literal("item.started"), item: itemEnvelope }),
  z.looseObject({ type: z.literal("item.updated"), item: itemEnvelope }),
  z.looseObject({ type: z.literal("item.completed"), item: itemEnvelope }),
  z.looseObject({ type: z.literal("error"), message: z.string() }),
]);
export type CodexLine = z.infer<typeof codexLineSchema>;
export const CODEX_LINE_TYPES: readonly string[] = codexLineSchema.options.map((o) => o.shape.type.value);

/** Any JSON object with a string `type`: used to tell unknown (skipped) lines from broken ones. */
export const codexEnvelopeSchema = z.looseObject({ type: z.string() });
