import fs from "node:fs/promises";
import path from "node:path";
import { appendChat, listAgents, readAgent, readChat } from "../records/records.js";
import { describeError, isOffrunError, OffrunError } from "../foundation/errors.js";
import { causeOf, failedForRoom } from "../foundation/disk-full.js";
import { injectFault } from "../foundation/fault-points.js";
import type { MemoryChangeEvent } from "../foundation/events.js";
import { revertOnto } from "./diff.js";
import { readBlob, readMemoryFile, sha256, storeBlob, updateRecorded } from "./snapshots.js";
import { ownerOf } from "./files.js";
import { memoryRel } from "./turn.js";
import { writeTextAtomic } from "../foundation/store.js";
import { projectPaths } from "../foundation/paths.js";
import { byCodeUnits } from "../foundation/text-order.js";

/** One memory change and the agent in whose turn (and chat log) it happened. */
export interface MemoryHistoryEntry {
  agent: string;
  event: MemoryChangeEvent;
}

/**
 * Every recorded memory change of the project, oldest first. With `agent`: the changes its turns
 * made, and the changes other agents made to its files.
 */
export async function memoryHistory(root: string, agent?: string): Promise<MemoryHistoryEntry[]> {
  // An agent's memory may outlive its record (or precede it, written by hand): either will do.
  if (agent !== undefined && !(await isDirectory(path.join(projectPaths(root).memory, agent)))) {
    await readAgent(root, agent);
  }
  const entries: MemoryHistoryEntry[] = [];
  for (const record of await listAgents(root)) {
    for (const event of (await readChat(root, record.name)).entries) {
      if (event.type !== "memory_change") continue;
      if (agent === undefined || record.name === agent || memoryRel(event.file).startsWith(`${agent}/`)) {
        entries.push({ agent: record.name, event });
      }
    }
  }
  return entries.sort((a, b) => byCodeUnits(a.event.at, b.event.at));
}

async function isDirectory(dir: string): Promise<boolean> {
  return fs.stat(dir).then(
    (stat) => stat.isDirectory(),
    () => false,
  );
}

export interface Reverted {
  file: string;
  /** reverted: the file was changed back; unchanged: it already read as before the change. */
  outcome: "reverted" | "unchanged";
}

/**
 * Undoes one memory change: the file goes back to what it was before, keeping edits made since
 * on other lines. Refuses (conflict) when later edits touch the lines of the change, and then
 * changes nothing. The revert is the user's: it is recorded so no agent's turn is credited with it.
 */
export async function revertMemoryChange(root: string, agent: string, id: string): Promise<Reverted> {
  const record = await readAgent(root, agent);
  const events = (await readChat(root, agent)).entries.filter(
    (e): e is MemoryChangeEvent => e.type === "memory_change",
  );
  const event = events.find((e) => e.id === id);
  if (!event) {
    const ids = events.map((e) => e.id);
    throw new OffrunError(
      "not_found",
      `${agent} has no memory change '${id}'. ${ids.length > 0 ? `Its changes: ${ids.join(", ")} (see \`offrun memory log ${agent}\`).` : "It has made no memory changes."}`,
    );
  }
  const rel = memoryRel(event.file);
  // The event is read back from a log a repository could have committed: its file must be a
  // memory file and its snapshots Offrun's own, or nothing is written.
  const unsafe = [
    path.isAbsolute(rel) || rel.split(/[\\/]/).some((part) => part === ".." || part === "")
      ? `its file ${event.file} is not inside the memory folder`
      : undefined,
    ...[event.before, event.after].map((sha) =>
      sha === undefined || /^[0-9a-f]{64}$/.test(sha) ? undefined : `its snapshot id ${sha} is not one`,
    ),
  ].filter((problem) => problem !== undefined);
  if (unsafe.length > 0) {
    throw new OffrunError(
      "invalid_input",
      `Memory change ${id} of ${agent} cannot be reverted: ${unsafe.join("; ")}. Edit the file by hand (\`offrun memory edit\`).`,
    );
  }
  const full = path.join(projectPaths(root).memory, rel);
  // What the file read before the revert, to put back if the revert cannot be recorded.
  let previous: { text: string | undefined } | undefined;
  const outcome = await updateRecorded(root, async (recorded) => {
    const current = await readMemoryFile(root, rel);
    const before = event.before === undefined ? undefined : await readBlob(root, event.before);
    const after = event.after === undefined ? undefined : await readBlob(root, event.after);
    if (current === before) return "unchanged" as const;
    const target = await revertedText(event, agent, current, before, after);
    // The snapshot first: a revert whose text has no snapshot could not itself be shown or undone.
    if (target !== undefined) await storeBlob(root, sha256(target), target);
    previous = { text: current };
    if (target === undefined) await fs.rm(full, { force: true });
    else {
      await fs.mkdir(path.dirname(full), { recursive: true });
      await writeTextAtomic(full, target, { shared: true });
    }
    injectFault("memory-revert", full);
    recorded[rel] = { sha: target === undefined ? null : sha256(target), at: new Date().toISOString() };
    return "reverted" as const;
  }).catch(async (error: unknown) => {
    // A refusal (a conflict, a missing snapshot) changed nothing and says so itself.
    if (previous === undefined && !failedForRoom(error)) throw error;
    // Whole or not at all: a file changed back but not recorded would be credited to the next turn.
    const putBack = previous === undefined ? "Nothing was changed" : await putBackText(full, previous.text);
    throw new OffrunError(
      isOffrunError(error) && !failedForRoom(error) ? error.kind : "process_failed",
      `Could not revert memory change ${id} of ${agent}: ${await causeOf(root, error)}. ${putBack}.`,
      { cause: error },
    );
  });
  if (outcome === "reverted") {
    await appendChat(root, agent, {
      type: "notice",
      level: "info",
      message: `You reverted memory change ${id} (${event.file}).`,
      at: new Date().toISOString(),
      turn: record.turns,
    }).catch(async (error: unknown) => {
      throw new OffrunError(
        "process_failed",
        `Reverted memory change ${id} (${event.file}), but ${agent}'s chat could not say so: ${await causeOf(root, error)}. The file is reverted; nothing needs doing again.`,
        { cause: error },
      );
    });
  }
  return { file: event.file, outcome };
}

/**
 * The agents whose turns may write the file of memory change `id` of `agent`: the agent, and the
 * file's owner when it is another agent's plan or dead ends. A revert runs while neither is in a
 * turn (in the companion, under their turn locks), so it never straddles a turn writing that file.
 */
export async function memoryChangeWriters(root: string, agent: string, id: string): Promise<string[]> {
  const event = (await readChat(root, agent)).entries.find((e) => e.type === "memory_change" && e.id === id);
  if (event?.type !== "memory_change") return [agent];
  const owner = ownerOf(memoryRel(event.file), agent);
  return owner.who === "other_agent" && owner.owner !== "" ? [agent, owner.owner] : [agent];
}

/** The file's text with the change undone (undefined: no file), or a conflict error. */
async function revertedText(
  event: MemoryChangeEvent,
  agent: string,
  current: string | undefined,
  before: string | undefined,
  after: string | undefined,
): Promise<string | undefined> {
  if (current === after) return before;
  const refuse = (why: string) =>
    new OffrunError(
      "conflict",
      `Cannot revert ${event.id}: ${event.file} ${why}, so undoing the change would lose those edits. Nothing was changed. Compare with \`offrun memory log ${agent}\` and fix it by hand with \`offrun memory edit ${agent}\`.`,
    );
  if (current === undefined) throw refuse("was deleted since");
  // A file the change created has no earlier text to go back to except "no file".
  if (before === undefined) throw refuse("was created by this change and edited since");
  const merged = await revertOnto(current, after ?? "", before);
  if (!merged.ok) throw refuse(`changed since in the same lines (${merged.conflicts} conflicting part(s))`);
  return merged.text;
}

/** Writes back what a memory file read before a revert that could not be recorded; says how it went. */
async function putBackText(full: string, text: string | undefined): Promise<string> {
  try {
    if (text === undefined) await fs.rm(full, { force: true });
    else await writeTextAtomic(full, text, { shared: true });
    return "The file is as it was before; nothing was changed";
  } catch (error) {
    return `The file is reverted but that is not recorded, and putting it back failed too (${describeError(error)}): the next turn of its agent will show the revert as its own change`;
  }
}
