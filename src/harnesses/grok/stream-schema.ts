import * as z from "zod";

/**
 * `grok -p … --output-format streaming-json` lines (xAI Grok Build). NOT verified against a real
 * binary (Grok Build is not on npm and needs an xAI login): built from third-party integration
 * notes that recorded Grok Build 0.2.x: `thought` and `text` carry incremental `data` deltas,
 * `tool_call` names the tool (`title`, `toolName`, `rawInput`, as in ACP), and the one terminal
 * `end` carries `sessionId`, `stopReason` ("EndTurn", "Cancelled", …), snake_case `usage`,
 * `num_turns`, optional `modelUsage` and, for a prompt it could not ask headless,
 * `cancellation_category: "permission_cancelled"`. `tool_call_update` and `error` are assumed by
 * analogy with ACP; unknown lines are ignored. Fields are lenient on purpose.
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
