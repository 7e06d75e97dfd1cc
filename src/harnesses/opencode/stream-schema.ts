import * as z from "zod";

/**
 * The lines `opencode run --format json` prints (1.18.33): one event per finished part of the
 * session, each `{type, timestamp, sessionID, part | error}`. Source of truth: OpenCode's
 * `packages/opencode/src/cli/cmd/run.ts` (the json format writes the bus events it receives) and
 * `MessageV2` part types. Objects are loose: newer builds add fields, which must not make a line
 * unreadable.
 */

const tokens = z.looseObject({
  input: z.number(),
  output: z.number(),
  reasoning: z.number().optional(),
  cache: z.looseObject({ read: z.number(), write: z.number() }).optional(),
});

/** A tool part's state: pending and running carry the input; completed and error end the call. */
const toolState = z.discriminatedUnion("status", [
  z.looseObject({ status: z.literal("pending"), input: z.unknown().optional() }),
  z.looseObject({ status: z.literal("running"), input: z.unknown().optional() }),
  z.looseObject({ status: z.literal("completed"), input: z.unknown().optional(), output: z.string().default("") }),
  z.looseObject({ status: z.literal("error"), input: z.unknown().optional(), error: z.string().default("") }),
]);
export type OpencodeToolState = z.infer<typeof toolState>;

const sessionID = z.string();

export const opencodeLineSchema = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("step_start"), sessionID }),
  z.looseObject({ type: z.literal("text"), sessionID, part: z.looseObject({ text: z.string() }) }),
  z.looseObject({ type: z.literal("reasoning"), sessionID }),
  z.looseObject({
    type: z.literal("tool_use"),
    sessionID,
    part: z.looseObject({ tool: z.string(), callID: z.string(), state: toolState }),
  }),
  z.looseObject({
    type: z.literal("step_finish"),
    sessionID,
    part: z.looseObject({ reason: z.string().optional(), tokens: tokens.optional(), cost: z.number().optional() }),
  }),
  z.looseObject({
    type: z.literal("error"),
    sessionID: sessionID.optional(),
    error: z.looseObject({
      name: z.string().optional(),
      data: z
        .looseObject({
          message: z.string().optional(),
          statusCode: z.number().optional(),
          responseBody: z.string().optional(),
        })
        .optional(),
    }),
  }),
]);
export type OpencodeLine = z.infer<typeof opencodeLineSchema>;
export const OPENCODE_LINE_TYPES: readonly string[] = opencodeLineSchema.options.map((o) => o.shape.type.value);

/** Any JSON object with a string `type`: tells unknown (skipped) lines from broken ones. */
export const opencodeEnvelopeSchema = z.looseObject({ type: z.string() });
