import fs from "node:fs";
import path from "node:path";
import * as z from "zod";
import { PendingCalls } from "../shared/pending-calls.js";
import type { ResumableClassifier, TranscriptReader } from "../types.js";
import { momentsOf, parseTranscriptLine, turnEnd } from "../shared/transcript-moments.js";

/**
 * Reads Gemini CLI's chat files (`$GEMINI_CLI_HOME/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl`;
 * checked against 0.61.0, test/fixtures/gemini/0.61.0/transcripts and its ChatRecordingService).
 * 0.61.0 appends (appendFileSync); it rewrites a file whole only when it could not read it back on a
 * resume (temp file + rename, which the watcher reads as a new file). Its records are upserts:
 * - a header `{sessionId, projectHash, startTime, kind}` (again on each resume); `kind: "subagent"`
 *   is a sub-agent's file (those live in `chats/<parent id>/`, so they are not sessions anyway);
 * - a message `{id, type: user|gemini|info|…, content, toolCalls?}`; the same id written again
 *   replaces it. A model reply is written with its text as soon as it streamed, and written again
 *   with `toolCalls` only once those calls *completed*;
 * - `{$set: {…}}` metadata, including whole `messages` lists that repeat old replies (never read),
 *   and `{$rewindTo: id}`.
 * So no line says "the turn ended", and a call waiting for approval is not on disk at all: a reply
 * with text and no toolCalls is the turn's end only if nothing follows it for a short while (its
 * tool calls, a function response, another reply). A reply with text that does call a tool which
 * then waits for approval, or runs longer than that, reads as finished: Gemini's AfterAgent hook
 * (`offrun hooks install`) is exact. A quota error writes nothing but the prompt (the history is
 * then reset with a `$set`), so no limit can be read here either.
 */

/** How long a reply with text must stay the last record before it counts as the turn's end. */
export const GEMINI_TURN_SETTLE_MS = 3_000;

const partSchema = z.looseObject({ text: z.string().optional(), thought: z.boolean().optional() });
const lineSchema = z.looseObject({
  id: z.string().optional(),
  type: z.string().optional(),
  timestamp: z.string().optional(),
  sessionId: z.string().optional(),
  kind: z.string().optional(),
  content: z.union([z.string(), z.array(partSchema)]).optional(),
  toolCalls: z.array(z.unknown()).optional(),
  $rewindTo: z.string().optional(),
});
type Line = z.infer<typeof lineSchema>;

export function createGeminiTranscriptClassifier(
  file: string,
  options: { settleMs?: number; now?: () => number; cwd?: string } = {},
): ResumableClassifier {
  const now = options.now ?? Date.now;
  const settle = options.settleMs ?? GEMINI_TURN_SETTLE_MS;
  // session-<time>-<first 8 of the id>.jsonl until the header names the whole id.
  let sessionId = path.basename(file, ".jsonl").replace(/^session-/, "");
  const cwd = options.cwd ?? projectRoot(file);
  let subAgent = false;
  /** Replies told (or past their settle period): a later copy of the same id is not news. */
  const told = new Set<string>();
  const pending = new PendingCalls();

  const moment = momentsOf(() => ({ sessionId, cwd }), now);

  const onReply = (line: Line, id: string) => {
    const words = textOf(line.content);
    if ((line.toolCalls?.length ?? 0) > 0 || words === "" || told.has(id)) return;
    const end = turnEnd(words);
    pending.add(id, moment(end.kind, end.text, line.timestamp, id), now() + settle);
  };

  return {
    push(raw) {
      // `$set` lines repeat the whole history (old replies included): skip them unparsed.
      if (raw.startsWith('{"$set"')) return [];
      const line = parseTranscriptLine(raw, lineSchema);
      if (!line) return [];
      if (line.sessionId) {
        sessionId = line.sessionId;
        subAgent = line.kind === "subagent";
        return [];
      }
      if (subAgent) return [];
      // Anything after a reply (its completed tool calls, a function response, a rewind) means it did not end the turn.
      if (line.$rewindTo || line.id) pending.clear();
      if (line.id && line.type === "gemini") onReply(line, line.id);
      return [];
    },
    due: (at) => {
      const moments = pending.due(at);
      for (const m of moments) if (m.eventId) told.add(m.eventId);
      return moments;
    },
    nextDueAt: () => pending.nextDueAt(),
    waiting: () => pending.waiting(),
    restoreWaiting: (calls) => pending.restoreWaiting(calls),
  };
}

function textOf(content: Line["content"]): string {
  if (typeof content === "string") return content.trim();
  return (content ?? [])
    .flatMap((p) => (p.text && !p.thought ? [p.text] : []))
    .join("")
    .trim();
}

/** The cwd the project folder belongs to: 0.61.0 writes it to `<project>/.project_root`. */
function projectRoot(file: string): string | undefined {
  try {
    return fs.readFileSync(path.join(path.dirname(path.dirname(file)), ".project_root"), "utf8").trim() || undefined;
  } catch {
    return undefined;
  }
}

export const geminiTranscripts: TranscriptReader = {
  // tmp/<project>/chats/session-*.jsonl; sub-agents write chats/<parent id>/<id>.jsonl, logs/ holds other files.
  isSession: (file, root) => {
    const parts = path.relative(root, file).split(path.sep);
    const name = parts[2] ?? "";
    return parts.length === 3 && parts[1] === "chats" && name.startsWith("session-") && name.endsWith(".jsonl");
  },
  createClassifier: (file) => createGeminiTranscriptClassifier(file),
};
