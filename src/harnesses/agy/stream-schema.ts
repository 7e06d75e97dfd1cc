import * as z from "zod";

/**
 * The lines `agy -p … --output-format stream-json` prints (1.1.8 and later): one JSON object per
 * line, keyed by `event`, NOT `type`, and not Gemini CLI's vocabulary. agy is closed source; the
 * shape comes from tools that record it from the real CLI (docs/harnesses/agy.md lists them):
 *   {"event":"init","conversation_id":"…","init":{cwd,tools,permission_mode}}
 *   {"event":"step_update","step_update":{conversation_id,step_index,state,step_type,…}}
 *   {"event":"result","result":{conversation_id,status,response,error?,duration_seconds,num_turns,usage}}
 * `step_type` is user_input, agent_response (its `text_delta`s concatenate to `result.response`),
 * tool (`tool_name`, `tool_info.{name,parameters,output,error}`), checkpoint or unknown; `state`
 * ACTIVE, DONE or ERROR. An agent_response's DONE line carries that step's own `usage`; the
 * result's `usage` and `num_turns` add up the whole conversation (1.2.3), so a turn's tokens are the
 * sum of its steps. `result.denied_actions` lists what the permission layer refused. A read-only slash command prints `command_result` instead, which a turn of
 * Offrun never sends. Objects are loose: newer builds add fields.
 */

const usage = z.looseObject({
  input_tokens: z.number().optional(),
  output_tokens: z.number().optional(),
  cache_read_tokens: z.number().optional(),
  thinking_tokens: z.number().optional(),
  total_tokens: z.number().optional(),
});
export type AgyUsage = z.infer<typeof usage>;

const toolInfo = z.looseObject({
  name: z.string().optional(),
  parameters: z.unknown().optional(),
  output: z.unknown().optional(),
  error: z.unknown().optional(),
});

export const agyLineSchema = z.discriminatedUnion("event", [
  z.looseObject({
    event: z.literal("init"),
    conversation_id: z.string().optional(),
    init: z.looseObject({ conversation_id: z.string().optional() }).optional(),
  }),
  z.looseObject({
    event: z.literal("step_update"),
    step_update: z.looseObject({
      step_index: z.number().optional(),
      state: z.string().optional(),
      step_type: z.string().optional(),
      text_delta: z.string().optional(),
      tool_name: z.string().optional(),
      tool_info: toolInfo.optional(),
      output: z.unknown().optional(),
      error: z.unknown().optional(),
      usage: usage.optional(),
    }),
  }),
  z.looseObject({
    event: z.literal("result"),
    result: z.looseObject({
      conversation_id: z.string().optional(),
      /** SUCCESS, CANCELED, INTERRUPTED or ERROR. */
      status: z.string(),
      response: z.string().optional(),
      error: z.string().optional(),
      usage: usage.optional(),
      denied_actions: z.array(z.looseObject({ action: z.string(), display_name: z.string().optional() })).optional(),
    }),
  }),
]);
export type AgyLine = z.infer<typeof agyLineSchema>;
export type AgyStep = Extract<AgyLine, { event: "step_update" }>["step_update"];

export const AGY_EVENTS = ["init", "step_update", "result"] as const;
export const agyEnvelopeSchema = z.looseObject({ event: z.string() });
