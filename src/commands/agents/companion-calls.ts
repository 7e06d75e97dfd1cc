import { Alert, Toast, confirmAlert, showToast } from "@raycast/api";
import { isOffrunError } from "../../core/foundation/errors.js";
import type { AgentRecord } from "../../core/foundation/model.js";
import { withCompanion } from "../lib/companion.js";
import { showFailure } from "../lib/failure.js";

/** What the Agents view's actions do. Turns go through the companion; merge and discard are git work in the core, as in the CLI. */

async function run(title: string, done: string, work: () => Promise<unknown>): Promise<boolean> {
  const toast = await showToast({ style: Toast.Style.Animated, title });
  try {
    await work();
    toast.style = Toast.Style.Success;
    toast.title = done;
    return true;
  } catch (error) {
    await toast.hide();
    await showFailure(error);
    return false;
  }
}

export function sendMessage(record: AgentRecord, prompt: string) {
  return run(`Sending to ${record.name}…`, `Sent to ${record.name}`, () =>
    withCompanion((c) => c.call("agent.send", { project: record.project, name: record.name, prompt })),
  );
}

export function approve(
  record: AgentRecord,
  requestId: string | undefined,
  options: { deny?: boolean; always?: boolean; reason?: string },
) {
  const verb = options.deny ? "Denied" : "Approved";
  return run(`${verb.slice(0, -1)}ing…`, `${verb} for ${record.name}`, () =>
    withCompanion((c) =>
      c.call("agent.approve", { project: record.project, name: record.name, requestId, ...options }),
    ),
  );
}

export function answer(record: AgentRecord, requestId: string | undefined, text: string) {
  return run("Answering…", `Answered ${record.name}`, () =>
    withCompanion((c) => c.call("agent.answer", { project: record.project, name: record.name, requestId, text })),
  );
}

export function stop(record: AgentRecord) {
  return run(`Stopping ${record.name}…`, `Stopped ${record.name}`, () =>
    withCompanion((c) => c.call("agent.stop", { project: record.project, name: record.name })),
  );
}

/** Another CLI: the companion's handoff, in the same worktree, with a new session built from the conversation. */
export function handOff(record: AgentRecord, harness: string) {
  return run(`Handing ${record.name} to ${harness}…`, `${record.name} continues on ${harness}`, () =>
    withCompanion((c) => c.call("agent.handoff", { project: record.project, name: record.name, harness })),
  );
}

/** Another login of the same CLI: its session is copied there and the next message resumes it (refused mid-turn). */
export function switchLogin(record: AgentRecord, account: string) {
  return run(`Moving ${record.name} to login ${account}…`, `${record.name} is on login ${account}`, () =>
    withCompanion((c) => c.call("agent.switch", { project: record.project, name: record.name, account })),
  );
}

export async function merge(record: AgentRecord): Promise<boolean> {
  const confirmed = await confirmAlert({
    title: `Merge ${record.name}?`,
    message: `Commits its work on ${record.branch} and merges it into the main checkout's current branch.`,
    primaryAction: { title: "Merge" },
  });
  if (!confirmed) return false;
  // Through the companion, under the agent's turn lock: a turn cannot start while its worktree is merged.
  return run(`Merging ${record.name}…`, `Merged ${record.branch}`, () =>
    withCompanion((c) => c.call("agent.merge", { project: record.project, name: record.name })),
  );
}

export async function discard(record: AgentRecord): Promise<boolean> {
  const confirmed = await confirmAlert({
    title: `Discard ${record.name}?`,
    message: `Removes its worktree; the branch ${record.branch} and the conversation are kept.`,
    primaryAction: { title: "Discard", style: Alert.ActionStyle.Destructive },
  });
  if (!confirmed) return false;
  const toast = await showToast({ style: Toast.Style.Animated, title: `Discarding ${record.name}…` });
  try {
    await withCompanion((c) =>
      c.call("agent.discard", { project: record.project, name: record.name, force: false, deleteBranch: false }),
    );
    toast.style = Toast.Style.Success;
    toast.title = `Discarded ${record.name}`;
    return true;
  } catch (error) {
    await toast.hide();
    // The refusal says what would be lost and how to go ahead anyway: show it as it is.
    await showFailure(error, isOffrunError(error, "would_lose_work") ? "Discard Refused" : undefined);
    return false;
  }
}
