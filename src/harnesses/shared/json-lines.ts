import type * as z from "zod";
import type { ParsedEvent } from "../../core/foundation/events.js";

/** A CLI line Offrun could not read, kept in the log as an error event (never thrown). */
export function unreadableLine(cli: string, what: string): ParsedEvent {
  return { type: "error", kind: "unreadable_output", message: `${cli} printed ${what}` };
}

/** The start of a line, for an error message. */
export function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/** What the typed JSON-line stream of one CLI looks like: any `{type}`, the types it knows, and their schema. */
export interface JsonLineSpec<T> {
  cli: string;
  envelope: z.ZodType<{ type: string }>;
  knownTypes: readonly string[];
  line: z.ZodType<T>;
}

/**
 * Decodes one stdout line of a CLI that prints one typed JSON object per line: the typed line,
 * or the events that say why it could not be read. A type this CLI version does not know yet
 * gives no event at all: newer CLIs add events, and those are not errors.
 */
function decodeJsonLine<T>(spec: JsonLineSpec<T>, text: string): { line: T } | { events: ParsedEvent[] } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { events: [unreadableLine(spec.cli, `a line that is not JSON: ${clip(text)}`)] };
  }
  const envelope = spec.envelope.safeParse(json);
  if (!envelope.success) return { events: [unreadableLine(spec.cli, `a line without a type: ${clip(text)}`)] };
  if (!spec.knownTypes.includes(envelope.data.type)) return { events: [] };
  const line = spec.line.safeParse(json);
  if (!line.success) {
    return { events: [unreadableLine(spec.cli, `a ${envelope.data.type} line Offrun cannot read: ${clip(text)}`)] };
  }
  return { line: line.data };
}

/**
 * The events of one stdout line of a JSON-line CLI, for a parser's `push`: none for a blank
 * line, `onLine`'s for a line `decodeJsonLine` could read, and why it could not otherwise.
 */
export function jsonLineEvents<T>(
  spec: JsonLineSpec<T>,
  text: string,
  onLine: (line: T) => ParsedEvent[],
): ParsedEvent[] {
  if (text.trim() === "") return [];
  const decoded = decodeJsonLine(spec, text);
  return "line" in decoded ? onLine(decoded.line) : decoded.events;
}
