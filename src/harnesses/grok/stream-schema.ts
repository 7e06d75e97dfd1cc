import * as z from "zod";

/**
 * `grok -p … --output-format streaming-json` lines (xAI Grok Build), as its user guide documents
 * them (xai-org/grok-build, crates/codegen/xai-grok-pager/docs/user-guide/14-headless-mode.md);
 * no real binary runs here. `thought` and `text` carry incremental `data` deltas, `tool_call` and
 * `tool_call_update` carry ACP's leaf fields plus xAI's `toolName`, a `usage` line closes each
 * model response, and the last line is `end` with `sessionId`, the snake_case `stopReason`
 * (`end_turn`, `cancelled`, …), snake_case `usage` and `num_turns`; a failure prints
 * `{"type":"error","message"}` and exits non-zero. Unknown lines are ignored; fields are lenient.
 */

export const grokThoughtSchema = z.object({ type: z.literal("thought"), data: z.string() }).passthrough();
export const grokTextSchema = z.object({ type: z.literal("text"), data: z.string() }).passthrough();
export const grokToolCallSchema = z
  .object({
    type: z.literal("tool_call"),
    toolCallId: z.string().optional(),
    id: z.string().optional(),
    title: z.string().optional(),
    toolName: z.string().optional(),
    rawInput: z.unknown().optional(),
  })
  .passthrough();
export const grokToolUpdateSchema = z
  .object({
    type: z.literal("tool_call_update"),
    toolCallId: z.string(),
    status: z.string().optional(),
    rawOutput: z.unknown().optional(),
  })
  .passthrough();
export const grokUsageSchema = z
  .object({
    input_tokens: z.number().optional(),
    output_tokens: z.number().optional(),
    cache_read_input_tokens: z.number().optional(),
    cache_creation_input_tokens: z.number().optional(),
  })
  .passthrough();
export const grokEndSchema = z
  .object({
    type: z.literal("end"),
    sessionId: z.string().optional(),
    stopReason: z.string().optional(),
    usage: grokUsageSchema.optional(),
    num_turns: z.number().optional(),
    cancellation_category: z.string().optional(),
  })
  .passthrough();
export const grokErrorSchema = z.object({ type: z.literal("error"), message: z.string() }).passthrough();

export const grokLineSchema = z.discriminatedUnion("type", [
  grokThoughtSchema,
  grokTextSchema,
  grokToolCallSchema,
  grokToolUpdateSchema,
  grokEndSchema,
  grokErrorSchema,
]);
export type GrokLine = z.infer<typeof grokLineSchema>;
