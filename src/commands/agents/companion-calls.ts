import { Alert, Toast, confirmAlert, showToast } from "@raycast/api";
import { isOffrunError } from "../../core/foundation/errors.js";
import { shownName, withAgentCompanion, type AgentTarget } from "../lib/companion.js";
import { showFailure } from "../lib/failure.js";

/**
 * What the Agents view's actions do, all through the companion (merge and discard under the
 * agent's turn lock). A host's agent is acted on by its own companion: the requests go there
 * over this companion's SSH connection to it.
 */

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

export function sendMessage(target: AgentTarget, prompt: string) {
  const { record } = target;
  return run(`Sending to ${shownName(target)}…`, `Sent to ${shownName(target)}`, () =>
    withAgentCompanion(target, (c) => c.call("agent.send", { project: record.project, name: record.name, prompt })),
  );
}

export function approve(
  target: AgentTarget,
  requestId: string | undefined,
  options: { deny?: boolean; always?: boolean; reason?: string },
) {
  const { record } = target;
  const verb = options.deny ? "Denied" : "Approved";
  return run(options.deny ? "Denying…" : "Approving…", `${verb} for ${shownName(target)}`, () =>
    withAgentCompanion(target, (c) =>
      c.call("agent.approve", { project: record.project, name: record.name, requestId, ...options }),
    ),
  );
}

export function answer(target: AgentTarget, requestId: string | undefined, text: string) {
  const { record } = target;
  return run("Answering…", `Answered ${shownName(target)}`, () =>
    withAgentCompanion(target, (c) =>
      c.call("agent.answer", { project: record.project, name: record.name, requestId, text }),
    ),
  );
}

export function stop(target: AgentTarget) {
  const { record } = target;
  return run(`Stopping ${shownName(target)}…`, `Stopped ${shownName(target)}`, () =>
    withAgentCompanion(target, (c) => c.call("agent.stop", { project: record.project, name: record.name })),
  );
}

/** Another CLI: the companion's handoff, in the same worktree, with a new session built from the conversation. */
export function handOff(target: AgentTarget, harness: string) {
  const { record } = target;
  return run(`Handing ${shownName(target)} to ${harness}…`, `${shownName(target)} continues on ${harness}`, () =>
    withAgentCompanion(target, (c) => c.call("agent.handoff", { project: record.project, name: record.name, harness })),
  );
}

/** Another login of the same CLI: its session is copied there and the next message resumes it (refused mid-turn). */
export function switchLogin(target: AgentTarget, login: string) {
  const { record } = target;
  return run(`Moving ${shownName(target)} to login ${login}…`, `${shownName(target)} is on login ${login}`, () =>
    withAgentCompanion(target, (c) =>
      c.call("agent.switch", { project: record.project, name: record.name, account: login }),
    ),
  );
}

export async function merge(target: AgentTarget): Promise<boolean> {
  const { record } = target;
  const where = target.host ? ` on ${target.host}` : "";
  const confirmed = await confirmAlert({
    title: `Merge ${shownName(target)}?`,
    message: `Commits its work on ${record.branch} and merges it into the main checkout's current branch${where}.`,
    primaryAction: { title: "Merge" },
  });
  if (!confirmed) return false;
  // Through the companion, under the agent's turn lock: a turn cannot start while its worktree is merged.
  return run(`Merging ${shownName(target)}…`, `Merged ${record.branch}${where}`, () =>
    withAgentCompanion(target, (c) => c.call("agent.merge", { project: record.project, name: record.name })),
  );
}

export async function discard(target: AgentTarget): Promise<boolean> {
  const { record } = target;
  const confirmed = await confirmAlert({
    title: `Discard ${shownName(target)}?`,
    message: `Removes its worktree${target.host ? ` on ${target.host}` : ""}; the branch ${record.branch} and the conversation are kept.`,
    primaryAction: { title: "Discard", style: Alert.ActionStyle.Destructive },
  });
  if (!confirmed) return false;
  const toast = await showToast({ style: Toast.Style.Animated, title: `Discarding ${shownName(target)}…` });
  try {
    await withAgentCompanion(target, (c) =>
      c.call("agent.discard", { project: record.project, name: record.name, force: false, deleteBranch: false }),
    );
    toast.style = Toast.Style.Success;
    toast.title = `Discarded ${shownName(target)}`;
    return true;
  } catch (error) {
    await toast.hide();
    // The refusal says what would be lost and how to go ahead anyway: show it as it is.
    await showFailure(error, isOffrunError(error, "would_lose_work") ? "Discard Refused" : undefined);
    return false;
  }
}
