import * as z from "zod";

/**
 * The lines `pi -p --mode json` prints (0.73.1): the session header, then every
 * `AgentSessionEvent`. Source of truth: pi-mono `packages/coding-agent/docs/json.md`,
 * `packages/agent/src/types.ts` (AgentEvent) and `packages/ai/src/types.ts` (messages).
 * Objects are loose: newer builds add fields, which must not make a line unreadable.
 */

const usage = z.looseObject({
  input: z.number(),
  output: z.number(),
  cacheRead: z.number().optional(),
  cacheWrite: z.number().optional(),
  cost: z.looseObject({ total: z.number().optional() }).optional(),
});

const contentPart = z.looseObject({
  type: z.string(),
  text: z.string().optional(),
  id: z.string().optional(),
  name: z.string().optional(),
  arguments: z.unknown().optional(),
});

/** A message of any role; only assistant messages are read closely. */
export const piMessageSchema = z.looseObject({
  role: z.string(),
  content: z.union([z.string(), z.array(contentPart)]).optional(),
  model: z.string().optional(),
  usage: usage.optional(),
  stopReason: z.string().optional(),
  errorMessage: z.string().optional(),
});
export type PiMessage = z.infer<typeof piMessageSchema>;

export const piLineSchema = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("session"), id: z.string() }),
  z.looseObject({ type: z.literal("agent_start") }),
  z.looseObject({ type: z.literal("agent_end"), messages: z.array(piMessageSchema).default([]) }),
  z.looseObject({ type: z.literal("turn_start") }),
  z.looseObject({ type: z.literal("turn_end") }),
  z.looseObject({ type: z.literal("message_start") }),
  z.looseObject({ type: z.literal("message_update") }),
  z.looseObject({ type: z.literal("message_end"), message: piMessageSchema }),
  z.looseObject({
    type: z.literal("tool_execution_start"),
    toolCallId: z.string(),
    toolName: z.string(),
    args: z.unknown().optional(),
  }),
  z.looseObject({ type: z.literal("tool_execution_update") }),
  z.looseObject({
    type: z.literal("tool_execution_end"),
    toolCallId: z.string(),
    toolName: z.string(),
    result: z.unknown().optional(),
    isError: z.boolean().default(false),
  }),
  z.looseObject({
    type: z.literal("auto_retry_start"),
    attempt: z.number(),
    maxAttempts: z.number().optional(),
    delayMs: z.number().optional(),
    errorMessage: z.string().default(""),
  }),
  z.looseObject({
    type: z.literal("auto_retry_end"),
    success: z.boolean(),
    attempt: z.number().optional(),
    finalError: z.string().optional(),
  }),
]);
export type PiLine = z.infer<typeof piLineSchema>;
export const PI_LINE_TYPES: readonly string[] = piLineSchema.options.map((o) => o.shape.type.value);

/** Any JSON object with a string `type`: tells unknown (skipped) lines from broken ones. */
export const piEnvelopeSchema = z.looseObject({ type: z.string() });

/** A tool result's `content: [{type:"text", text}]`, as far as Offrun shows it. */
export const piToolResultSchema = z.looseObject({
  content: z.array(z.looseObject({ type: z.string(), text: z.string().optional() })).default([]),
});
