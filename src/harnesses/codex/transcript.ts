import path from "node:path";
import * as z from "zod";
import { PendingCalls } from "../shared/pending-calls.js";
import type { ResumableClassifier, TranscriptMoment, TranscriptReader } from "../types.js";
import { parseCodexLimitText } from "../shared/codex-limit-text.js";
import { momentsOf, parseTranscriptLine, turnEnd } from "../shared/transcript-moments.js";

/**
 * Reads Codex rollouts (`<home>/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl`, lines
 * `{timestamp, type, payload}`; checked against 0.171.0, test/fixtures/codex/0.171.0/quota-home):
 * - `session_meta` (first line) names the thread (`payload.id`), its cwd and who started it
 *   (`thread_source`: a sub-agent's thread is never told);
 * - `turn_context` carries the cwd of each turn;
 * - `event_msg` `task_complete` ends a turn with `last_agent_message`, or with `error.message`
 *   (a usage limit reads "You’ve hit your usage limit. Try again at 4:31 AM.");
 * - a `function_call` / `custom_tool_call` without its `*_output` after a grace period is a call
 *   waiting for approval. Codex's exec tool hands back output after its yield time (10 s by
 *   default) even for commands still running, so the grace period is longer than that.
 */

export const CODEX_APPROVAL_GRACE_MS = 12_000;
/** The tool Codex asks the user through (Plan mode's request_user_input). */
const QUESTION_TOOL = "request_user_input";
/** Calls that never wait for approval. */
const NEVER_ASKS = new Set(["update_plan", "view_image", "write_stdin"]);

const lineSchema = z.looseObject({
  timestamp: z.string().optional(),
  type: z.string(),
  payload: z.looseObject({ type: z.string().optional() }).optional(),
});
const metaSchema = z.looseObject({
  id: z.string().optional(),
  cwd: z.string().optional(),
  thread_source: z.string().optional(),
  source: z.unknown().optional(),
});
const completeSchema = z.looseObject({
  turn_id: z.string().optional(),
  last_agent_message: z.string().nullable().optional(),
  error: z.looseObject({ message: z.string() }).nullable().optional(),
});
const callSchema = z.looseObject({
  call_id: z.string(),
  name: z.string().optional(),
  arguments: z.string().optional(),
  input: z.string().optional(),
});
const argumentsSchema = z.looseObject({
  cmd: z.union([z.string(), z.array(z.string())]).optional(),
  command: z.union([z.string(), z.array(z.string())]).optional(),
  questions: z.array(z.looseObject({ question: z.string() })).optional(),
});

export function createCodexTranscriptClassifier(
  file: string,
  options: { graceMs?: number; now?: () => number } = {},
): ResumableClassifier {
  const now = options.now ?? Date.now;
  const grace = options.graceMs ?? CODEX_APPROVAL_GRACE_MS;
  // rollout-2026-11-30T02-17-32-<thread id>.jsonl: the id is what follows the 19-character time.
  let sessionId = path.basename(file, ".jsonl").replace(/^rollout-.{19}-/, "");
  let cwd: string | undefined;
  let subAgent = false;
  const pending = new PendingCalls();

  const moment = momentsOf(() => ({ sessionId, cwd }), now);

  const onMeta = (payload: unknown) => {
    const meta = metaSchema.safeParse(payload);
    if (!meta.success) return;
    if (meta.data.id) sessionId = meta.data.id;
    if (meta.data.cwd) cwd = meta.data.cwd;
    const source = JSON.stringify(meta.data.source ?? "");
    subAgent =
      (meta.data.thread_source !== undefined && meta.data.thread_source !== "user") || source.includes("subagent");
  };

  const onCall = (payload: unknown, at: string | undefined): TranscriptMoment[] => {
    const call = callSchema.safeParse(payload);
    if (!call.success) return [];
    const name = call.data.name ?? "tool";
    const args = parseArguments(call.data.arguments);
    if (name === QUESTION_TOOL) {
      const text = args?.questions?.map((q) => q.question).join(" ") ?? name;
      return [moment("question", text, at, call.data.call_id)];
    }
    if (NEVER_ASKS.has(name)) return [];
    const command = args?.cmd ?? args?.command;
    const text = command
      ? [command].flat().join(" ")
      : `${name}: ${(call.data.input ?? call.data.arguments ?? "").slice(0, 200)}`;
    pending.add(call.data.call_id, moment("needs-approval", text, at, call.data.call_id), now() + grace);
    return [];
  };

  const onComplete = (payload: unknown, at: string | undefined): TranscriptMoment[] => {
    pending.clear();
    const done = completeSchema.safeParse(payload);
    if (!done.success) return [];
    const error = done.data.error?.message;
    if (error)
      return parseCodexLimitText(error, new Date(now())) ? [moment("limit", error, at, done.data.turn_id)] : [];
    const words = done.data.last_agent_message ?? "";
    const end = turnEnd(words);
    return [moment(end.kind, end.text, at, done.data.turn_id)];
  };

  return {
    push(raw) {
      const line = parseTranscriptLine(raw, lineSchema);
      if (!line) return [];
      const { type, payload, timestamp } = line;
      const kind = payload?.type;
      if (type === "session_meta") onMeta(payload);
      if (subAgent) return [];
      if (type === "turn_context") {
        const context = metaSchema.safeParse(payload);
        if (context.success && context.data.cwd) cwd = context.data.cwd;
      }
      if (type === "response_item" && (kind === "function_call" || kind === "custom_tool_call"))
        return onCall(payload, timestamp);
      if (type === "response_item" && (kind === "function_call_output" || kind === "custom_tool_call_output")) {
        const output = callSchema.pick({ call_id: true }).safeParse(payload);
        if (output.success) pending.resolve(output.data.call_id);
      }
      if (type === "event_msg" && kind === "task_complete") return onComplete(payload, timestamp);
      return [];
    },
    due: (at) => pending.due(at),
    nextDueAt: () => pending.nextDueAt(),
    waiting: () => pending.waiting(),
    restoreWaiting: (calls) => pending.restoreWaiting(calls),
  };
}

function parseArguments(text: string | undefined): z.infer<typeof argumentsSchema> | undefined {
  if (!text) return undefined;
  try {
    const parsed = argumentsSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

export const codexTranscripts: TranscriptReader = {
  isSession: (file, root) => {
    const parts = path.relative(root, file).split(path.sep);
    const name = parts.at(-1) ?? "";
    return parts.length === 4 && name.startsWith("rollout-") && name.endsWith(".jsonl");
  },
  createClassifier: (file) => createCodexTranscriptClassifier(file),
};
