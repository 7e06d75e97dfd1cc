import path from "node:path";
import * as z from "zod";
import type { TranscriptClassifier, TranscriptMoment, TranscriptReader } from "../types.js";
import { parsePiLimitText } from "./limit-text.js";
import { momentsOf, parseTranscriptLine, turnEnd } from "../shared/transcript-moments.js";

/**
 * Reads Pi's session files (`<home>/sessions/--<cwd>--/<time>_<session id>.jsonl`; checked against
 * 0.73.1, test/fixtures/pi/0.73.1/transcripts). Pi appends one line per entry
 * (`SessionManager._persist`, appendFileSync) once the first assistant message exists, so the
 * file only grows:
 * - `{"type":"session", id, cwd}` (first line) names the session and its cwd;
 * - `{"type":"message", id, message:{role, …}}`: `user`, `assistant` (content text/toolCall blocks
 *   and a `stopReason`), `toolResult`;
 * - a turn ended: an assistant message whose stopReason is `stop` (or `length`); `toolUse` goes on
 *   with the tool's result, `aborted` is the user's own doing;
 * - a limit: an assistant message with stopReason `error` whose `errorMessage` is a limit text
 *   ("429 You have hit your usage limit. …"). Pi retries anything with "429" in it (3 times by
 *   default) and writes each failed attempt, so a limit is told once per prompt.
 * Pi asks for no approval (it has no permission prompts) and has no question tool: a tool call
 * without its result is a tool still running, never "needs approval".
 */

const TURN_ENDS = new Set(["stop", "length"]);

const blockSchema = z.union([
  z.looseObject({ type: z.literal("text"), text: z.string() }),
  z.looseObject({ type: z.string() }),
]);
const lineSchema = z.looseObject({
  type: z.string(),
  id: z.string().optional(),
  cwd: z.string().optional(),
  timestamp: z.string().optional(),
  message: z
    .looseObject({
      role: z.string(),
      content: z.union([z.string(), z.array(blockSchema)]).optional(),
      stopReason: z.string().optional(),
      errorMessage: z.string().optional(),
    })
    .optional(),
});
type Message = NonNullable<z.infer<typeof lineSchema>["message"]>;

export function createPiTranscriptClassifier(file: string, options: { now?: () => number } = {}): TranscriptClassifier {
  const now = options.now ?? Date.now;
  // <time>_<session id>.jsonl: the id follows the first '_'.
  let sessionId = path.basename(file, ".jsonl").replace(/^[^_]*_/, "");
  let cwd: string | undefined;
  /** The entry id of the prompt the agent is answering: the retries of one prompt share it. */
  let prompt: string | undefined;
  const limitTold = new Set<string>();

  const moment = momentsOf(() => ({ sessionId, cwd }), now);

  const onAssistant = (message: Message, id: string | undefined, at: string | undefined): TranscriptMoment[] => {
    const stop = message.stopReason ?? "";
    if (stop === "error") {
      const error = message.errorMessage ?? "";
      const key = prompt ?? id ?? "";
      if (!parsePiLimitText(error, new Date(now())) || limitTold.has(key)) return [];
      limitTold.add(key);
      return [moment("limit", error.replace(/^\d{3}\s+/, ""), at, `limit:${key}`)];
    }
    if (!TURN_ENDS.has(stop)) return [];
    const content = message.content ?? [];
    const words =
      typeof content === "string"
        ? content
        : content.flatMap((b) => (b.type === "text" && "text" in b ? [String(b.text)] : [])).join("\n");
    const end = turnEnd(words);
    return [moment(end.kind, end.text, at, id)];
  };

  return {
    push(raw) {
      const line = parseTranscriptLine(raw, lineSchema);
      if (!line) return [];
      if (line.type === "session") {
        if (line.id) sessionId = line.id;
        if (line.cwd) cwd = line.cwd;
        return [];
      }
      if (line.type !== "message" || !line.message) return [];
      if (line.message.role === "user") prompt = line.id;
      if (line.message.role === "assistant") return onAssistant(line.message, line.id, line.timestamp);
      return [];
    },
    // Nothing waits on time: Pi never asks before running a tool.
    due: () => [],
    nextDueAt: () => undefined,
  };
}

export const piTranscripts: TranscriptReader = {
  // sessions/--<cwd>--/<time>_<id>.jsonl
  isSession: (file, root) => {
    const parts = path.relative(root, file).split(path.sep);
    return parts.length === 2 && (parts[0] ?? "").startsWith("--") && file.endsWith(".jsonl");
  },
  createClassifier: (file) => createPiTranscriptClassifier(file),
};
