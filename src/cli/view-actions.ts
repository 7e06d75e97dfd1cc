import fs from "node:fs/promises";
import { agentDiff, agentDiscard, agentMerge } from "../core/agents/branch-actions.js";
import { readAgent, readChat } from "../core/agents/records.js";
import { asSeen, listAgentsAsSeen, runningCompanionPid } from "../core/agents/orphans.js";
import type { AgentEvent } from "../core/foundation/events.js";
import { findRepoRoot } from "../core/git/repo.js";
import type { AgentRecord } from "../core/foundation/model.js";
import { projectPaths } from "../core/foundation/paths.js";
import { throughCompanion } from "./context.js";
import { pendingFromLog } from "../core/agents/approvals.js";
import { AGENT_HEADER, agentRows, elapsed, renderEvent, renderPending, table } from "./format.js";
import { output, projectDir, type GlobalOptions } from "./output.js";

/** ls, show, diff, merge, discard: they read and change files directly, without the companion. */

export async function ls(options: GlobalOptions): Promise<void> {
  const root = await findRepoRoot(projectDir(options));
  const listing = await listAgentsAsSeen(root);
  output(options, listing, () => {
    if (listing.agents.length === 0 && listing.unreadable.length === 0) {
      return `No agents in ${root} yet. Start one: offrun start "describe the task"`;
    }
    const problems = listing.unreadable.map((u) => `⚠ ${u.problem}`);
    return [table(AGENT_HEADER, agentRows(listing.agents)), ...problems].join("\n");
  });
}

export async function show(name: string, options: GlobalOptions): Promise<void> {
  const root = await findRepoRoot(projectDir(options));
  const record = asSeen(await readAgent(root, name), (await runningCompanionPid()) !== undefined);
  const chat = await readChat(root, name);
  const setupLog = projectPaths(root).log(name);
  const hasSetupLog = await fs.stat(setupLog).then(
    (stat) => stat.size > 0,
    () => false,
  );
  const pending = pendingFromLog(record, chat.entries);
  output(options, { agent: record, pending, events: chat.entries, corruptLines: chat.corrupt }, () =>
    showText(record, chat.entries, chat.corrupt.length, hasSetupLog ? setupLog : undefined),
  );
}

export async function diff(name: string, options: GlobalOptions & { stat?: boolean }): Promise<void> {
  const result = await agentDiff(projectDir(options), name);
  output(options, { files: result.files, patch: result.patch }, () => {
    if (result.files.length === 0) return `${name} has changed nothing since ${result.record.base.slice(0, 8)}.`;
    const list = result.files.map((f) => `${f.status.padEnd(8)} ${f.path}  +${f.additions} -${f.deletions}`).join("\n");
    return options.stat ? list : `${list}\n\n${result.patch}`;
  });
}

export async function merge(name: string, options: GlobalOptions): Promise<void> {
  const project = projectDir(options);
  const result = await throughCompanion(
    (client) => client.call("agent.merge", { project, name }),
    () => agentMerge(project, name),
  );
  output(
    options,
    result,
    () =>
      `Merged ${result.record.branch} into ${result.mergedInto} (${result.commit.slice(0, 8)}): ${result.files.length} file(s).`,
  );
}

export async function discard(
  name: string,
  options: GlobalOptions & { force?: boolean; deleteBranch?: boolean },
): Promise<void> {
  const project = projectDir(options);
  const how = { force: Boolean(options.force), deleteBranch: Boolean(options.deleteBranch) };
  const result = await throughCompanion(
    (client) => client.call("agent.discard", { project, name, ...how }),
    () => agentDiscard(project, name, how),
  );
  output(
    options,
    result,
    () => `Discarded ${name}: removed ${result.worktreeRemoved}. The conversation stays in ${result.logFile}.`,
  );
}

function showText(record: AgentRecord, events: AgentEvent[], corrupt: number, setupLog?: string): string {
  const head = [
    `${record.name} · ${record.status} · ${record.harness} (${record.account}) · ${record.mode}`,
    `  task:     ${record.task.split("\n")[0]}`,
    `  worktree: ${record.worktree}`,
    `  branch:   ${record.branch} (base ${record.base.slice(0, 8)})`,
    `  port:     ${record.port}`,
    `  elapsed:  ${elapsed(record.createdAt)} since start, ${record.turns} turn(s)`,
    ...(record.sessionId ? [`  session:  ${record.sessionId}`] : []),
    ...(setupLog ? [`  setup log: ${setupLog}`] : []),
    ...(record.lastError ? [`  ⚠ ${record.lastError}`] : []),
    ...(corrupt > 0
      ? [`  ⚠ ${corrupt} line(s) of the chat log could not be read; they are kept in the file as they are.`]
      : []),
  ];
  const body = events.map(renderEvent).filter((line): line is string => line !== undefined);
  // Last, where the eye lands: what the agent waits for, and the exact command to answer it.
  const waiting = renderPending(record.name, pendingFromLog(record, events));
  return [...head, ...body, ...(waiting.length > 0 ? ["", ...waiting] : [])].join("\n");
}
