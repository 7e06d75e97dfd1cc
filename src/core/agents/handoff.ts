import { findHarness } from "../../harnesses/registry.js";
import type { AgentEvent } from "../foundation/events.js";
import type { AgentRecord, ProjectConfig } from "../foundation/model.js";
import { loadProjectConfig } from "../foundation/project.js";
import { diffWorktree } from "../git/diff.js";
import type { LoginPicker } from "../logins/picker.js";
import { requireAgentBinary } from "./binary.js";
import type { AgentJournal } from "./journal.js";
import { readChat } from "../records/records.js";
import type { HandoffRequest } from "../protocol/requests.js";

/** Room for each part of the handoff, so the whole stays well inside any model's context. */
const CONVERSATION_CHARS = 30_000;
const DIFF_CHARS = 40_000;

export interface HandoffInput {
  record: AgentRecord;
  events: AgentEvent[];
  toHarness: string;
  /** What the user wants next, if they said. */
  message?: string;
  /** The first line, when it is not another CLI taking over (see carryOverPrompt). */
  intro?: string;
}

/**
 * The first message for another CLI taking over an agent in the same worktree: the task, the
 * conversation so far (the user's messages and the agent's answers, newest kept when long), the
 * current diff. File state needs no carrying: it is the same worktree. The project memory is not
 * repeated here: every new session (another harness is one) gets it first, from memory-turn.ts.
 */
export async function buildHandoffPrompt(input: HandoffInput): Promise<string> {
  const { record } = input;
  const diff = await diffWorktree({ worktree: record.worktree, baseCommit: record.base }).catch(() => undefined);
  const lastEnd = input.events.findLast((e) => e.type === "turn_end");
  const why = lastEnd?.type === "turn_end" && lastEnd.reason ? ` It stopped: ${lastEnd.reason}` : "";
  const parts = [
    input.intro ??
      `You are taking over a coding task from another agent (${record.harness}), in the same git worktree: every file change it made is already here.${why}`,
    `## Task\n${record.task}`,
    `## Conversation so far\n${tail(conversation(input.events), CONVERSATION_CHARS)}`,
    diff && diff.files.length > 0
      ? `## Changes so far (against ${record.base.slice(0, 12)})\n${diff.files.map((f) => `${f.status} ${f.path}`).join("\n")}\n\n${head(diff.patch, DIFF_CHARS)}`
      : "## Changes so far\nNone yet.",
    input.message ? `## Next\n${input.message}` : "## Next\nContinue the task from where it stopped.",
  ];
  return parts.join("\n\n");
}

/**
 * A user's message to an agent that has a conversation but no session of its CLI to resume (a
 * companion killed during a handoff or before the first turn's CLI kept its session): the CLI
 * starts a new session, so it gets the task, the conversation and the diff with the message, as a
 * handoff would, instead of the message alone.
 */
export async function carryOverPrompt(record: AgentRecord, message: string, before: number): Promise<string> {
  const events = (await readChat(record.project, record.name)).entries.filter((e) => e.turn < before);
  return buildHandoffPrompt({
    record,
    events,
    toHarness: record.harness,
    message,
    intro:
      "You are going on with a coding task in this git worktree, in a new session: the earlier one could not be resumed, so the task and the conversation so far are repeated here, and every file change made so far is already in the worktree.",
  });
}

function conversation(events: AgentEvent[]): string {
  const lines: string[] = [];
  for (const event of events) {
    if (event.type === "user_message") lines.push(`User: ${event.text}`);
    else if (event.type === "text") lines.push(`Agent: ${event.text}`);
    else if (event.type === "tool_call") lines.push(`(agent used ${event.name})`);
  }
  return lines.join("\n\n") || "(nothing yet)";
}

function tail(text: string, max: number): string {
  return text.length <= max ? text : `(earlier part left out)\n${text.slice(-max)}`;
}

function head(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n(rest left out)`;
}

/**
 * Moves an idle agent's record to the other CLI and login and logs the handoff; returns the
 * handoff prompt and what its first turn runs with. The new CLI starts its own session; the old
 * one's stays in its home.
 */
export async function handOver(options: {
  root: string;
  record: AgentRecord;
  request: HandoffRequest;
  env: NodeJS.ProcessEnv;
  logins: LoginPicker;
  journal: AgentJournal;
}): Promise<{ prompt: string; binary: string; config: ProjectConfig; warnings: string[] }> {
  const { root, record, request, journal } = options;
  const config = await loadProjectConfig(root);
  const harness = await findHarness(request.harness, { project: root, env: options.env });
  const binary = await requireAgentBinary(harness, options.env);
  const pick = await options.logins.choose(harness, { label: request.account, force: request.force });
  const prompt = await buildHandoffPrompt({
    record,
    events: (await readChat(root, record.name)).entries,
    toHarness: harness.id,
    message: request.message,
  });
  const fromHarness = record.harness;
  await journal.update(record, {
    harness: harness.id,
    account: pick.login.label,
    sessionId: undefined,
    model: request.model,
  });
  await journal.log(record, record.turns, {
    type: "handoff",
    fromHarness,
    toHarness: harness.id,
    account: pick.login.label,
  });
  return { prompt, binary, config, warnings: pick.warning ? [pick.warning] : [] };
}
