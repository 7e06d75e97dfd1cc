import fs from "node:fs/promises";
import path from "node:path";
import { findHarness } from "../../harnesses/registry.js";
import { findLogin } from "./store.js";
import { appendChat, readAgent, writeAgent } from "../records/records.js";
import { describeError, isOffrunError, OffrunError } from "../foundation/errors.js";
import type { Login } from "../foundation/login-model.js";
import { loginsRoot } from "./logins-file.js";
import { findRepoRoot } from "../git/repo.js";
import { LoginPicker } from "./picker.js";
import { isAlive } from "../foundation/pids.js";
import type { AgentRecord } from "../foundation/model.js";
import type { SwitchRequest, Switched } from "../protocol/switch-request.js";

/**
 * The login an agent was on, removed since (`offrun logins rm --force`): its home, where Offrun
 * made it, is kept for its agents' sessions, and a switch copies them from there. Else the error.
 */
async function removedLogin(error: unknown, harness: string, label: string, env: NodeJS.ProcessEnv): Promise<Login> {
  if (!isOffrunError(error, "not_found")) throw error;
  const home = path.join(loginsRoot(env), harness, label);
  if (
    !(await fs.stat(home).then(
      (stat) => stat.isDirectory(),
      () => false,
    ))
  )
    throw error;
  return { harness, label, home, isDefault: false, adopted: false, env: {} };
}

/**
 * Moves an agent to another login of the same CLI, as failover does but because the user asked:
 * the CLI's own session file is copied into the other login's home, and the agent's next message
 * resumes it there, with the whole conversation and its tool calls. Refused while a turn runs (the
 * running CLI writes to the old home's session) and when the session cannot be copied (going on
 * without it would lose the conversation: `offrun handoff` is the way to start afresh).
 */
export async function switchLogin(request: SwitchRequest, env: NodeJS.ProcessEnv = process.env): Promise<Switched> {
  const root = await findRepoRoot(request.project);
  const record = await readAgent(root, request.name);
  refuseUnlessIdle(record);
  const harness = await findHarness(record.harness, { project: root, env });
  const from = await findLogin(harness, record.account, env).catch((error: unknown) =>
    removedLogin(error, harness.id, record.account, env),
  );
  const to = (await new LoginPicker(env).choose(harness, { label: request.account, force: request.force })).login;
  if (to.label === from.label) {
    throw new OffrunError(
      "invalid_input",
      `${record.name} is already on login '${to.label}' of ${harness.displayName}.`,
    );
  }
  let sessionCopied = false;
  if (record.sessionId) {
    try {
      await harness.copySession({
        fromHome: from.home,
        toHome: to.home,
        sessionId: record.sessionId,
        cwd: record.worktree,
      });
      sessionCopied = true;
    } catch (error) {
      throw new OffrunError(
        "process_failed",
        `Could not move ${record.name}'s ${harness.displayName} session to login '${to.label}': ${describeError(error)} ` +
          `It stays on '${from.label}'. To go on with a new session there instead, run \`offrun handoff ${record.name} --harness ${harness.id} --login ${to.label}\`.`,
        { cause: error },
      );
    }
  }
  // Read again just before writing: a turn that began meanwhile keeps the agent where it is.
  const current = await readAgent(root, record.name);
  refuseUnlessIdle(current);
  const now = new Date().toISOString();
  const updated: AgentRecord = { ...current, account: to.label, updatedAt: now };
  await writeAgent(updated);
  await appendChat(root, record.name, {
    type: "account_switch",
    from: from.label,
    to: to.label,
    reason: sessionCopied
      ? `you switched it; the ${harness.displayName} session was copied, so the next message resumes the whole conversation there.`
      : "you switched it; no session had started yet, so the next message starts one there.",
    at: now,
    turn: current.turns,
  });
  return { agent: updated, from: from.label, to: to.label, sessionCopied };
}

function refuseUnlessIdle(record: AgentRecord): void {
  if (record.status === "done") {
    throw new OffrunError("invalid_input", `${record.name} was discarded; there is no session to move.`);
  }
  // A turn in a failover pause or a retry backoff has no process but is still running.
  const running =
    record.status === "working" || (record.status === "needs-you" && record.pid !== undefined && isAlive(record.pid));
  if (running) {
    throw new OffrunError(
      "invalid_input",
      `${record.name} is in the middle of a turn. Wait for it to end, or \`offrun stop ${record.name}\`, then switch its login.`,
    );
  }
}
