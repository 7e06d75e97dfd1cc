import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { readAgent } from "../core/records/records.js";
import { OffrunError, describeError, isOffrunError } from "../core/foundation/errors.js";
import { findRepoRoot } from "../core/git/repo.js";
import { applyMemoryEdit, readForEdit, type MemoryEditFile } from "../core/memory/edit.js";
import { memoryFiles } from "../core/memory/files.js";
import { memoryHistory, revertMemoryChange } from "../core/memory/history.js";
import { readMemoryFile, scanMemory } from "../core/memory/snapshots.js";
import { projectPaths } from "../core/foundation/paths.js";
import { runInteractive } from "../core/foundation/process.js";
import { throughCompanion } from "./context.js";
import { describeWho, renderMemoryChange } from "./memory-format.js";
import { output, projectDir, type GlobalOptions } from "./output.js";
import { byCodeUnits } from "../core/foundation/text-order.js";

/** `offrun memory log|revert|show|edit`: they read the memory files directly; revert and edit write through the companion. */

export async function log(agent: string | undefined, options: GlobalOptions): Promise<void> {
  const root = await findRepoRoot(projectDir(options));
  const entries = await memoryHistory(root, agent);
  output(options, entries, () => {
    if (entries.length === 0) return `No memory changes recorded${agent ? ` for ${agent}` : ""} yet.`;
    return entries
      .map(({ agent: by, event }) => {
        const head = `${event.at.slice(0, 19).replace("T", " ")}  turn ${event.turn} of ${by}: ${describeWho(event)}`;
        return `${head}\n${renderMemoryChange(event, by)}`;
      })
      .join("\n\n");
  });
}

export async function revert(agent: string, id: string, options: GlobalOptions): Promise<void> {
  const root = await findRepoRoot(projectDir(options));
  // Through the companion: it reverts once no turn that writes the file runs.
  const result = await throughCompanion(
    (client) => client.call("memory.revert", { project: root, agent, id }),
    () => revertMemoryChange(root, agent, id),
  );
  output(options, result, () =>
    result.outcome === "reverted"
      ? `Reverted ${id}: ${result.file} is back to what it was before that change.`
      : `${result.file} already reads as it did before ${id}; nothing to undo.`,
  );
}

export async function show(agent: string | undefined, options: GlobalOptions): Promise<void> {
  const root = await findRepoRoot(projectDir(options));
  if (agent !== undefined) await readAgent(root, agent);
  const memory = projectPaths(root).memory;
  const rels = agent
    ? ["conventions.md", `${agent}/plan.md`, `${agent}/dead-ends.md`]
    : Object.keys(await scanMemory(root)).sort(byConventionsFirst);
  const files = await Promise.all(
    rels.map(async (rel) => ({ path: path.join(memory, rel), text: await readMemoryFile(root, rel) })),
  );
  output(options, { files }, () => {
    if (files.length === 0) return `No memory files in ${memory} yet. Agents create theirs on their first turn.`;
    return files
      .map((f) => `── ${f.path}\n${f.text === undefined ? "(not created yet)" : f.text.trimEnd()}`)
      .join("\n\n");
  });
}

function byConventionsFirst(a: string, b: string): number {
  if (a === "conventions.md") return -1;
  if (b === "conventions.md") return 1;
  return byCodeUnits(a, b);
}

/**
 * Opens the memory files in `$EDITOR`: conventions.md, plus the agent's plan and dead ends when
 * one is named. The variable is split on spaces into a program and its arguments (`code -w`);
 * it is never run through a shell. The editor gets copies, and what was saved goes through the
 * companion, which writes it while the agent is not in a turn (one it starts meanwhile ends first).
 */
export async function edit(agent: string | undefined, options: GlobalOptions): Promise<void> {
  const root = await findRepoRoot(projectDir(options));
  const editor = (process.env.EDITOR ?? "").trim().split(/\s+/).filter(Boolean);
  const program = editor[0];
  if (!program) {
    throw new OffrunError(
      "invalid_input",
      "$EDITOR is not set, so there is no editor to open. Set it (e.g. `export EDITOR=vim`, or `EDITOR='code -w'`), or print the files with `offrun memory show`.",
    );
  }
  if (agent !== undefined && (await readAgent(root, agent)).status === "working") {
    // Said before the editor opens, so no edit is made only to be refused; the companion checks again.
    throw new OffrunError(
      "invalid_input",
      `${agent} is in the middle of a turn. Wait for it to end, or \`offrun stop ${agent}\`, then try again.`,
    );
  }
  const opened = await readForEdit(root, agent);
  const copies = await writeCopies(opened);
  const result = await runInteractive({ file: program, args: [...editor.slice(1), ...copies.files] });
  const saved = await Promise.all(
    // A copy the editor removed is taken as unchanged: deleting memory is not an edit.
    opened.map(async (f, i) => ({ ...f, text: await fs.readFile(copies.files[i]!, "utf8").catch(() => f.text) })),
  );
  const request = { project: root, ...(agent === undefined ? {} : { agent }), files: saved };
  const { changed } = await throughCompanion(
    (client) => client.call("memory.edit", request),
    async () => ({ changed: await applyMemoryEdit(root, agent, saved) }),
  ).catch((error: unknown) => {
    const kept = `Your edits are kept in ${copies.dir}.`;
    throw isOffrunError(error)
      ? new OffrunError(error.kind, `${error.message} ${kept}`, { cause: error })
      : new OffrunError("process_failed", `${describeError(error)} ${kept}`, { cause: error });
  });
  await fs.rm(copies.dir, { recursive: true, force: true });
  if (result.failed) {
    throw new OffrunError(
      "process_failed",
      `${program} ended with an error (${result.message ?? `exit ${result.exitCode}`}).${changed.length > 0 ? ` Its saved edits are kept: ${changed.join(", ")}.` : ""}`,
    );
  }
  const dir = memoryFiles(root, agent ?? "").dir;
  const files = opened.map((f) => path.join(dir, f.file));
  output(options, { files, changed }, () =>
    changed.length > 0 ? `Saved: ${changed.map((rel) => path.join(dir, rel)).join(", ")}.` : "No memory file changed.",
  );
}

/** The files as the editor opens them, in a private folder, named as in `.offrun/memory`. */
async function writeCopies(opened: MemoryEditFile[]): Promise<{ dir: string; files: string[] }> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "offrun-memory-"));
  const files = await Promise.all(
    opened.map(async (f) => {
      const copy = path.join(dir, f.file);
      await fs.mkdir(path.dirname(copy), { recursive: true, mode: 0o700 });
      await fs.writeFile(copy, f.text, { mode: 0o600 });
      return copy;
    }),
  );
  return { dir, files };
}
