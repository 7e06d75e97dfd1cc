import * as z from "zod";

/**
 * The lines `gemini -p … -o stream-json` prints (0.61.0). Source of truth: google-gemini/gemini-cli
 * packages/core/src/output/types.ts (JsonStreamEventType and its event interfaces). Objects are
 * loose: newer builds add fields, and an unknown field must not make a line unreadable.
 */

const stats = z.looseObject({
  total_tokens: z.number().optional(),
  input_tokens: z.number().optional(),
  output_tokens: z.number().optional(),
  cached: z.number().optional(),
  duration_ms: z.number().optional(),
  tool_calls: z.number().optional(),
});

export const geminiLineSchema = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("init"), session_id: z.string(), model: z.string().optional() }),
  z.looseObject({
    type: z.literal("message"),
    role: z.string(),
    content: z.string(),
    delta: z.boolean().optional(),
  }),
  z.looseObject({
    type: z.literal("tool_use"),
    tool_name: z.string(),
    tool_id: z.string(),
    parameters: z.unknown().optional(),
  }),
  z.looseObject({
    type: z.literal("tool_result"),
    tool_id: z.string(),
    status: z.string(),
    output: z.string().optional(),
    error: z.looseObject({ type: z.string().optional(), message: z.string() }).optional(),
  }),
  z.looseObject({ type: z.literal("error"), severity: z.string().optional(), message: z.string() }),
  z.looseObject({
    type: z.literal("result"),
    status: z.string(),
    error: z.looseObject({ type: z.string().optional(), message: z.string() }).optional(),
    stats: stats.optional(),
  }),
]);
export type GeminiLine = z.infer<typeof geminiLineSchema>;
export const GEMINI_LINE_TYPES: readonly string[] = geminiLineSchema.options.map((o) => o.shape.type.value);

/** Any JSON object with a string `type`: used to tell unknown (skipped) lines from broken ones. */
export const geminiEnvelopeSchema = z.looseObject({ type: z.string() });
