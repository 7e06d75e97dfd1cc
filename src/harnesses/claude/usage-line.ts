import * as z from "zod";

/**
 * Reads the usage of one assistant line of a Claude Code session file without parsing the whole
 * line. An assistant line is mostly `message.content` (answers, tool inputs carrying whole files);
 * usage and ids are a small part of it, and JSON.parse of every line was most of a cold scan.
 *
 * Every build seen so far (1.x, 2.0.x, 2.1.332) writes model answers as
 *   {...,"message":{"id":..,"type":"message","role":"assistant","model":..,"content":[..],..,"usage":{..},..},..,"requestId"|"requestRef":..,"type":"assistant",..,"timestamp":..,..}
 * so the fast path takes message.id and model from before the content, the token counts from the
 * usage object after it, and the top-level fields after the usage. Any line not in that order (2.1.332's synthetic
 * limit message puts usage first) goes through a full JSON.parse; both paths end in the same schema.
 */

const usageSchema = z.object({
  input_tokens: z.number(),
  output_tokens: z.number(),
  cache_creation_input_tokens: z.number().nullish(),
  cache_read_input_tokens: z.number().nullish(),
});
const assistantLineSchema = z.object({
  type: z.literal("assistant"),
  timestamp: z.string(),
  requestId: z.string().optional(),
  requestRef: z.string().optional(),
  message: z.object({ id: z.string().optional(), model: z.string().optional(), usage: usageSchema.nullish() }),
});
export type AssistantLine = z.infer<typeof assistantLineSchema>;

const key = (text: string) => Buffer.from(text, "latin1");
const MESSAGE = key('"message":{');
const CONTENT = key('"content":');
const USAGE = key('"usage":{');
const ID = key('"id":"');
const MODEL = key('"model":"');
const TYPE_ASSISTANT = key('"type":"assistant"');
const TIMESTAMP = key('"timestamp":"');
const REQUEST_ID = key('"requestId":"');
const REQUEST_REF = key('"requestRef":"');
const [QUOTE, BACKSLASH, CLOSE_OBJECT] = [0x22, 0x5c, 0x7d];

/** The assistant line's fields we count with; "corrupt" when it is not JSON, undefined when it is not one. */
export function readAssistantLine(line: Buffer): AssistantLine | "corrupt" | undefined {
  const fast = fastFields(line);
  let json: unknown = fast;
  if (fast === undefined) {
    try {
      json = JSON.parse(line.toString("utf8"));
    } catch {
      return "corrupt";
    }
  }
  const parsed = assistantLineSchema.safeParse(json);
  return parsed.success ? parsed.data : undefined;
}

/** The fields by position (see the file comment), or undefined when the line is not in that order. */
export function fastFields(line: Buffer): Record<string, unknown> | undefined {
  const message = line.indexOf(MESSAGE);
  const content = line.indexOf(CONTENT, message);
  const usage = line.lastIndexOf(USAGE);
  if (message < 0 || content < 0 || usage < content) return undefined;
  // The usage object holds no "timestamp" or "type" key, so what follows it is top-level.
  const timestamp = valueAfter(line, TIMESTAMP, usage, line.length);
  if (timestamp === undefined || line.indexOf(TYPE_ASSISTANT, usage) < 0) return undefined;
  const tokens = TOKEN_KEYS.map((name) => numberAfter(line, name, usage));
  if (tokens.includes(null)) return undefined;
  const [input, output, cacheCreation, cacheRead] = tokens;
  return {
    type: "assistant",
    timestamp,
    requestId: valueAfter(line, REQUEST_ID, usage, line.length),
    requestRef: valueAfter(line, REQUEST_REF, usage, line.length),
    message: {
      id: valueAfter(line, ID, message, content),
      model: valueAfter(line, MODEL, message, content),
      usage: {
        input_tokens: input,
        output_tokens: output,
        cache_creation_input_tokens: cacheCreation,
        cache_read_input_tokens: cacheRead,
      },
    },
  };
}

const TOKEN_KEYS = ["input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"].map(
  (name) => key(`"${name}":`),
);

/**
 * The whole number after `name` (the first one after `from`): undefined when the key is absent,
 * null when its value is not a plain number (then JSON.parse reads the line).
 */
function numberAfter(line: Buffer, name: Buffer, from: number): number | undefined | null {
  const at = line.indexOf(name, from);
  if (at < 0) return undefined;
  let value = 0;
  let i = at + name.length;
  for (; i < line.length; i++) {
    const digit = (line[i] ?? 0) - 0x30;
    if (digit < 0 || digit > 9) break;
    value = value * 10 + digit;
  }
  const next = line[i];
  return i === at + name.length || (next !== 0x2c && next !== CLOSE_OBJECT) ? null : value;
}

/** The string value after `name` within [from, to): ids, models and times, which carry no escapes. */
function valueAfter(line: Buffer, name: Buffer, from: number, to: number): string | undefined {
  const at = line.indexOf(name, from);
  if (at < 0 || at >= to) return undefined;
  const start = at + name.length;
  const end = line.indexOf(QUOTE, start);
  if (end < 0 || end > to) return undefined;
  for (let i = start; i < end; i++) if (line[i] === BACKSLASH) return undefined; // an escape: let JSON.parse read it
  return line.toString("latin1", start, end);
}
