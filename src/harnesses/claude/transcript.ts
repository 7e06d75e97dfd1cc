import path from "node:path";
import * as z from "zod";
import { PendingCalls } from "../shared/pending-calls.js";
import type { ResumableClassifier, TranscriptMoment, TranscriptReader } from "../types.js";
import { parseClaudeLimitText } from "../shared/claude-limit-text.js";
import { momentsOf, parseTranscriptLine, turnEnd } from "../shared/transcript-moments.js";

/**
 * Reads Claude Code's session transcripts (`<home>/projects/<folder>/<session id>.jsonl`; checked
 * against 2.1.332, test/fixtures/claude/2.1.332/transcripts and quota-home). What marks what:
 * - a turn ended: an assistant line (not `isSidechain`) whose `message.stop_reason` is `end_turn`
 *   (`stop_sequence` on the synthetic limit message) and that holds no tool_use. 2.1.332 writes
 *   one line per content block, each with the whole message's stop_reason, so a message is told
 *   once by its `message.id`;
 * - a tool waiting for the user: a tool_use whose tool_result has not come after a grace period.
 *   The CLI writes nothing while a tool runs (a 4 s `sleep` left no line between the tool_use and
 *   its result), so a command allowed without asking that runs longer than the grace period looks
 *   the same: the grace period trades that against a late approval notice;
 * - a question: the AskUserQuestion tool, or a turn whose last paragraph asks something;
 * - a limit: an `isApiErrorMessage` assistant line whose text is a limit text.
 * Sub-agents write to `<session id>/subagents/agent-*.jsonl` with `isSidechain: true`: never read.
 */

/** How long a tool call may stay without its result before it counts as waiting for approval. */
export const CLAUDE_APPROVAL_GRACE_MS = 6_000;
const QUESTION_TOOL = "AskUserQuestion";
/** Tools Claude Code runs without asking in every permission mode but plan (reads, sub-agents, its todo list). */
const NEVER_ASKS = new Set(["Read", "Glob", "Grep", "LS", "TodoWrite", "Task", "Agent", "NotebookRead", "ToolSearch"]);
const EDIT_TOOLS = new Set(["Write", "Edit", "MultiEdit", "NotebookEdit"]);
const TURN_ENDS = new Set(["end_turn", "stop_sequence", "max_tokens"]);

const blockSchema = z.union([
  z.looseObject({ type: z.literal("text"), text: z.string() }),
  z.looseObject({ type: z.literal("tool_use"), id: z.string(), name: z.string(), input: z.unknown() }),
  z.looseObject({ type: z.literal("tool_result"), tool_use_id: z.string() }),
  z.looseObject({ type: z.string() }),
]);
const lineSchema = z.looseObject({
  type: z.string(),
  isSidechain: z.boolean().optional(),
  isApiErrorMessage: z.boolean().optional(),
  sessionId: z.string().optional(),
  cwd: z.string().optional(),
  timestamp: z.string().optional(),
  permissionMode: z.string().optional(),
  message: z
    .looseObject({
      id: z.string().optional(),
      stop_reason: z.string().nullable().optional(),
      content: z.union([z.string(), z.array(blockSchema)]).optional(),
    })
    .optional(),
});
type Line = z.infer<typeof lineSchema>;
type Block = z.infer<typeof blockSchema>;

const questionInputSchema = z.looseObject({ questions: z.array(z.looseObject({ question: z.string() })).min(1) });

export function createClaudeTranscriptClassifier(
  file: string,
  options: { graceMs?: number; now?: () => number } = {},
): ResumableClassifier {
  const now = options.now ?? Date.now;
  const grace = options.graceMs ?? CLAUDE_APPROVAL_GRACE_MS;
  let sessionId = path.basename(file, ".jsonl");
  let cwd: string | undefined;
  let mode: string | undefined;
  let lastText = "";
  const told = new Set<string>();
  const pending = new PendingCalls();

  const moment = momentsOf(() => ({ sessionId, cwd }), now);

  const waitsForUser = (tool: string) => {
    if (mode === "bypassPermissions" || NEVER_ASKS.has(tool)) return false;
    return !(mode === "acceptEdits" && EDIT_TOOLS.has(tool));
  };

  const onUser = (line: Line, blocks: Block[] | string) => {
    if (line.permissionMode) mode = line.permissionMode;
    const results = typeof blocks === "string" ? [] : blocks.filter((b) => b.type === "tool_result");
    for (const result of results) if ("tool_use_id" in result) pending.resolve(String(result.tool_use_id));
    // A new prompt: whatever waited was answered or abandoned.
    if (results.length === 0) {
      pending.clear();
      lastText = "";
    }
  };

  const onAssistant = (line: Line, blocks: Block[]): TranscriptMoment[] => {
    const out: TranscriptMoment[] = [];
    const texts = blocks.flatMap((b) => (b.type === "text" && "text" in b ? [String(b.text)] : []));
    if (texts.length > 0) lastText = texts.join("\n");
    if (line.isApiErrorMessage) {
      const limit = texts.find((t) => parseClaudeLimitText(t, new Date(now()))?.severity === "limit");
      if (limit) out.push(moment("limit", limit, line.timestamp, line.message?.id));
      return out;
    }
    const tools = blocks.flatMap((b) => (b.type === "tool_use" && "id" in b && "name" in b ? [b] : []));
    for (const tool of tools) {
      const id = String(tool.id);
      const name = String(tool.name);
      if (name === QUESTION_TOOL) {
        const input = questionInputSchema.safeParse(tool.input);
        const text = input.success ? input.data.questions.map((q) => q.question).join(" ") : name;
        out.push(moment("question", text, line.timestamp, id));
      } else if (waitsForUser(name)) {
        pending.add(
          id,
          moment("needs-approval", describeToolInput(name, tool.input), line.timestamp, id),
          now() + grace,
        );
      }
    }
    const messageId = line.message?.id;
    const stop = line.message?.stop_reason;
    if (tools.length === 0 && stop && TURN_ENDS.has(stop) && texts.length > 0 && !(messageId && told.has(messageId))) {
      if (messageId) told.add(messageId);
      const end = turnEnd(lastText);
      out.push(moment(end.kind, end.text, line.timestamp, messageId));
    }
    return out;
  };

  return {
    push(raw) {
      // Cheap test first: most lines are attachments, request blobs and bookkeeping.
      if (!raw.includes('"user"') && !raw.includes('"assistant"')) return [];
      const line = parseTranscriptLine(raw, lineSchema);
      if (!line || line.isSidechain === true) return [];
      if (line.sessionId) sessionId = line.sessionId;
      if (line.cwd) cwd = line.cwd;
      const content = line.message?.content;
      if (line.type === "user" && content !== undefined) onUser(line, content);
      if (line.type === "assistant" && Array.isArray(content)) return onAssistant(line, content);
      return [];
    },
    due: (at) => pending.due(at),
    nextDueAt: () => pending.nextDueAt(),
    waiting: () => pending.waiting(),
    restoreWaiting: (calls) => pending.restoreWaiting(calls),
  };
}

/** What the user is asked to allow: the command, the file, or the tool's input as JSON. */
function describeToolInput(tool: string, input: unknown): string {
  if (input && typeof input === "object") {
    const record = input as Record<string, unknown>;
    for (const field of ["command", "file_path", "notebook_path", "url", "plan"]) {
      const value = record[field];
      if (typeof value === "string") return field === "command" ? value : `${tool}: ${value}`;
    }
  }
  return `${tool}: ${JSON.stringify(input) ?? ""}`;
}

export const claudeTranscripts: TranscriptReader = {
  // projects/<folder>/<session id>.jsonl; anything deeper belongs to a session's sub-agents.
  isSession: (file, root) => {
    const parts = path.relative(root, file).split(path.sep);
    return parts.length === 2 && file.endsWith(".jsonl");
  },
  createClassifier: (file) => createClaudeTranscriptClassifier(file),
};
