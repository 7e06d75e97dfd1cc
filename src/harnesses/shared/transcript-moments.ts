import type * as z from "zod";
import { trailingQuestion } from "../../core/foundation/question.js";
import type { TranscriptMoment } from "../types.js";

/**
 * The moment builder of one transcript reader. The session id and cwd are read when a moment
 * is made, not when the builder is: a reader learns them from a line after the file name.
 */
export function momentsOf(session: () => { sessionId: string; cwd?: string | undefined }, now: () => number) {
  return (kind: TranscriptMoment["kind"], text: string, at: string | undefined, eventId?: string): TranscriptMoment => {
    const { sessionId, cwd } = session();
    return {
      kind,
      sessionId,
      ...(eventId ? { eventId } : {}),
      ...(cwd ? { cwd } : {}),
      text,
      at: at ?? new Date(now()).toISOString(),
    };
  };
}

/** How a turn that ended with `words` is told: the question it ends on, else finished with its last words. */
export function turnEnd(words: string): { kind: "question" | "finished"; text: string } {
  const question = trailingQuestion(words);
  return question ? { kind: "question", text: question } : { kind: "finished", text: words };
}

/** One transcript line, or undefined when it is not JSON or not a shape this reader follows (never thrown). */
export function parseTranscriptLine<T>(raw: string, schema: z.ZodType<T>): T | undefined {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return undefined;
  }
  const parsed = schema.safeParse(json);
  return parsed.success ? parsed.data : undefined;
}
