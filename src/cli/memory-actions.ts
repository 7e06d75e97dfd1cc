import path from "node:path";
import { readAgent } from "../core/agents/records.js";
import { OffrunError } from "../core/foundation/errors.js";
import { findRepoRoot } from "../core/git/repo.js";
import { ensureConventions, ensureMemory, memoryFiles } from "../core/memory/files.js";
import { memoryHistory, recordUserEdits, revertMemoryChange } from "../core/memory/history.js";
import { readMemoryFile, scanMemory } from "../core/memory/snapshots.js";
import { projectPaths } from "../core/foundation/paths.js";
import { runInteractive } from "../core/foundation/process.js";
import { describeWho, renderMemoryChange } from "./memory-format.js";
import { output, projectDir, type GlobalOptions } from "./output.js";

/** `offrun memory log|revert|show|edit`: they read and write the memory files directly, without the companion. */

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
  const result = await revertMemoryChange(root, agent, id);
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
  return a.localeCompare(b);
}

/**
 * Opens the memory files in `$EDITOR`: conventions.md, plus the agent's plan and dead ends when
 * one is named. The variable is split on spaces into a program and its arguments (`code -w`);
 * it is never run through a shell.
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
  if (agent !== undefined) await readAgent(root, agent);
  const files = agent
    ? await ensureMemory(root, agent).then((m) => [m.conventions, m.plan, m.deadEnds])
    : [await ensureConventions(root)];
  const before = await scanMemory(root);
  const result = await runInteractive({ file: program, args: [...editor.slice(1), ...files] });
  const changed = await recordUserEdits(root, before);
  if (result.failed) {
    throw new OffrunError(
      "process_failed",
      `${program} ended with an error (${result.message ?? `exit ${result.exitCode}`}).${changed.length > 0 ? ` Its saved edits are kept: ${changed.join(", ")}.` : ""}`,
    );
  }
  output(options, { files, changed }, () =>
    changed.length > 0
      ? `Saved: ${changed.map((rel) => path.join(memoryFiles(root, agent ?? "").dir, rel)).join(", ")}.`
      : "No memory file changed.",
  );
}
