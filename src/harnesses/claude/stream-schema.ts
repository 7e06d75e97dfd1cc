import * as z from "zod";

/**
 * The lines of `claude -p --output-format stream-json --verbose`, as far as Offrun reads them.
 * Source of truth: the fixtures in test/fixtures/claude/<version>/ (recorded from the real CLI);
 * unknown fields are dropped, unknown line types are ignored by the parser.
 */

const textBlock = z.object({ type: z.literal("text"), text: z.string() });
const toolUseBlock = z.object({ type: z.literal("tool_use"), id: z.string(), name: z.string(), input: z.unknown() });
const toolResultBlock = z.object({
  type: z.literal("tool_result"),
  tool_use_id: z.string(),
  content: z.union([z.string(), z.array(z.object({ type: z.string(), text: z.string().optional() }))]).optional(),
  is_error: z.boolean().optional(),
});
/** Thinking, images and whatever a later version adds. */
const otherBlock = z.object({ type: z.string() });
const contentBlock = z.union([textBlock, toolUseBlock, toolResultBlock, otherBlock]);
export type ClaudeContentBlock = z.infer<typeof contentBlock>;

const systemLine = z.object({
  type: z.literal("system"),
  subtype: z.string(),
  session_id: z.string().optional(),
  model: z.string().optional(),
  // system/api_retry
  attempt: z.number().optional(),
  max_retries: z.number().optional(),
  retry_delay_ms: z.number().optional(),
  error_status: z.number().nullable().optional(),
});

const assistantLine = z.object({
  type: z.literal("assistant"),
  message: z.object({ model: z.string().optional(), content: z.array(contentBlock) }),
  // Set on the synthetic messages the CLI writes for API failures ("rate_limit", "authentication_failed").
  error: z.string().optional(),
  api_error_status: z.number().nullable().optional(),
  api_error: z.string().optional(),
});

const userLine = z.object({
  type: z.literal("user"),
  message: z.object({ content: z.union([z.string(), z.array(contentBlock)]) }),
});

const rateLimitStatus = z.enum(["allowed", "allowed_warning", "rejected"]);
const unifiedWindow = z.object({
  utilization: z.number(),
  resetsAt: z.number(),
  status: rateLimitStatus.optional().catch(undefined),
});
export const rateLimitInfoSchema = z.object({
  status: rateLimitStatus,
  resetsAt: z.number().nullable().optional(), // epoch seconds
  rateLimitType: z.string().nullable().optional(),
  utilization: z.number().optional(), // 0..1, present with allowed_warning
  // 2.1.332 leaves it out when a reset is further away than the window's length (seen with a 2030 reset).
  unifiedWindows: z.record(z.string(), unifiedWindow.optional()).optional(),
});
export type RateLimitInfo = z.infer<typeof rateLimitInfoSchema>;

const rateLimitLine = z.object({ type: z.literal("rate_limit_event"), rate_limit_info: rateLimitInfoSchema });

const resultLine = z.object({
  type: z.literal("result"),
  subtype: z.string(),
  is_error: z.boolean(),
  result: z.string().optional(),
  session_id: z.string().optional(),
  usage: z
    .object({
      input_tokens: z.number(),
      output_tokens: z.number(),
      cache_creation_input_tokens: z.number().optional(),
      cache_read_input_tokens: z.number().optional(),
    })
    .optional(),
  total_cost_usd: z.number().optional(),
  permission_denials: z.array(z.object({ tool_name: z.string(), tool_input: z.unknown() })).optional(),
  api_error_status: z.number().nullable().optional(),
  api_error: z.string().optional(),
  terminal_reason: z.string().optional(),
  /** Why a turn ended without running (2.1.332: "No conversation found with session ID: <id>" on --resume). */
  errors: z.array(z.string()).optional(),
  /** The StructuredOutput tool's input, validated by the CLI against `--json-schema` (2.1.332). */
  structured_output: z.unknown().optional(),
});

export const claudeLineSchema = z.discriminatedUnion("type", [
  systemLine,
  assistantLine,
  userLine,
  rateLimitLine,
  resultLine,
]);
export type ClaudeLine = z.infer<typeof claudeLineSchema>;
export type ClaudeResultLine = z.infer<typeof resultLine>;
export type ClaudeAssistantLine = z.infer<typeof assistantLine>;

/** The line types Offrun reads; anything else (stream_event, tool_use_summary, ...) is skipped. */
export const KNOWN_LINE_TYPES = new Set(["system", "assistant", "user", "rate_limit_event", "result"]);
export const lineTypeSchema = z.object({ type: z.string() });
