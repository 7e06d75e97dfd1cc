import type { Supervisor } from "../agents/supervisor.js";
import { agentDiscard, agentMerge } from "../agents/branch-actions.js";
import { addToDraft, draftFile, writeDraft } from "../records/draft.js";
import { readAgent } from "../records/records.js";
import { findRepoRoot } from "../git/repo.js";
import { addLogin, setDefaultLogin, setReserve } from "../logins/store.js";
import { removeLogin } from "../logins/changes.js";
import { agentsOnLogin, renameLogin } from "../logins/rename.js";
import { applyMemoryEdit } from "../memory/edit.js";
import { memoryChangeWriters, revertMemoryChange } from "../memory/history.js";
import type { Handlers } from "../protocol/protocol.js";

/**
 * The changes the faces ask the companion to make, each under the lock a turn would take: the one
 * writer (docs/architecture.md, "One writer"). A face writes by itself only when no companion can
 * run (the CLI's fallback), and then no turn runs either.
 */

type Change =
  | "agent.merge"
  | "agent.discard"
  | "login.add"
  | "login.default"
  | "login.reserve"
  | "login.remove"
  | "login.rename"
  | "memory.revert"
  | "memory.edit"
  | "draft.add"
  | "draft.write";

export function changeHandlers(supervisor: Supervisor, log: (line: string) => void): Handlers<Change> {
  /** The turn locks of every agent that runs on a login (in every known project). */
  const onLogin = async (harness: string, label: string) =>
    (await agentsOnLogin(harness, label)).map((r) => ({ project: r.project, name: r.name }));
  /** Says in the companion's log what changed for a face (names only: never a draft's or a file's text). */
  const noted = <T>(what: string, change: Promise<T>) =>
    change.then((result) => {
      log(`for a face: ${what}`);
      return result;
    });
  return {
    "agent.merge": (p) =>
      noted(
        `agent.merge ${p.name}`,
        supervisor.whileIdle(p.project, p.name, () => agentMerge(p.project, p.name)),
      ),
    "agent.discard": async ({ project, name, ...how }) => {
      if (how.force) await supervisor.stop(project, name);
      return noted(
        `agent.discard ${name}`,
        supervisor.whileIdle(project, name, () => agentDiscard(project, name, how)),
      );
    },
    // A turn of an agent still naming the login cannot start while it appears (a home left by rm is reused).
    "login.add": async (p) =>
      noted(
        `login.add ${p.harness} ${p.label}`,
        supervisor.whileAllIdle(await onLogin(p.harness, p.label), () => addLogin(p)),
      ),
    // Only Start Agent reads the default (no turn does): accounts.json's own lock is enough.
    "login.default": (p) =>
      noted(
        `login.default ${p.harness} ${p.label ?? "(none)"}`,
        setDefaultLogin({ harness: p.harness, label: p.label ?? undefined }).then((login) => ({
          account: login ?? null,
        })),
      ),
    // Read by picks only, which take accounts.json's own lock: no turn lock.
    "login.reserve": (p) =>
      noted(
        `login.reserve ${p.harness} ${p.label} ${p.percent}`,
        setReserve({ harness: p.harness, label: p.label, percent: p.percent }).then((login) => ({ account: login })),
      ),
    // Under the turn locks of the login's agents: no turn on it starts with the old name meanwhile,
    // nor runs in a home that is being deleted.
    "login.remove": async (p) =>
      noted(
        `login.remove ${p.harness} ${p.label}`,
        supervisor.whileAllIdle(await onLogin(p.harness, p.label), () => removeLogin(p)),
      ),
    "login.rename": async (p) =>
      noted(
        `login.rename ${p.harness} ${p.label} ${p.to}`,
        supervisor.whileAllIdle(await onLogin(p.harness, p.label), () => renameLogin(p)),
      ),
    // Neither the agent nor the file's owner is in a turn: a turn that writes the file ends first.
    "memory.revert": async (p) => {
      const root = await findRepoRoot(p.project);
      const writers = (await memoryChangeWriters(root, p.agent, p.id)).map((name) => ({ project: root, name }));
      return noted(
        `memory.revert ${p.agent} ${p.id}`,
        supervisor.whileAllIdle(writers, () => revertMemoryChange(root, p.agent, p.id)),
      );
    },
    // The agent's files under its turn lock; conventions.md alone under the memory record's lock,
    // which every turn takes to record its changes (no one agent's turn owns it).
    "memory.edit": async (p) => {
      const root = await findRepoRoot(p.project);
      const write = async () => ({ changed: await applyMemoryEdit(root, p.agent, p.files) });
      const agent = p.agent;
      if (agent !== undefined) await readAgent(root, agent);
      return noted(
        `memory.edit ${agent ?? "conventions.md"}`,
        agent === undefined ? write() : supervisor.whileIdle(root, agent, write),
      );
    },
    // The draft's own lock (draft.ts), not the turn's: the user writes the next message while a turn runs.
    // Not noted in the log: the box saves its text at every pause in typing.
    "draft.add": async (p) => {
      const root = await findRepoRoot(p.project);
      await readAgent(root, p.name);
      return { file: await addToDraft(root, p.name, p.text) };
    },
    "draft.write": async (p) => {
      const root = await findRepoRoot(p.project);
      await readAgent(root, p.name);
      await writeDraft(root, p.name, p.text);
      return { file: draftFile(root, p.name) };
    },
  };
}
