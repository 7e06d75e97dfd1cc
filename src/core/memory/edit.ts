import fs from "node:fs/promises";
import path from "node:path";
import { OffrunError } from "../foundation/errors.js";
import { projectPaths } from "../foundation/paths.js";
import { AGENT_FILES, CONVENTIONS_FILE, ensureConventions, ensureMemory, starterText } from "./files.js";
import { writeTextAtomic } from "../foundation/store.js";
import { readMemoryFile, sha256, snapshotPaths, storeBlob, updateRecorded } from "./snapshots.js";

/**
 * `offrun memory edit`: the user edits copies of the memory files, and what they saved is written
 * back in one step (by the companion, under the agent's turn lock), so a turn never runs while the
 * files are half edited, and no turn is credited with the user's edits.
 */

/** One file of an edit: relative to `.offrun/memory`, the sha of the text the editor opened, and the text now. */
export interface MemoryEditFile {
  file: string;
  base: string;
  text: string;
}

/** The files an edit opens, relative to `.offrun/memory`: conventions.md, and the agent's two when one is named. */
export function editableMemory(agent?: string): string[] {
  return agent === undefined ? [CONVENTIONS_FILE] : [CONVENTIONS_FILE, ...AGENT_FILES.map((f) => `${agent}/${f}`)];
}

/** Each file's text for the editor: as it is, or as a new one starts. */
export async function readForEdit(root: string, agent?: string): Promise<MemoryEditFile[]> {
  return Promise.all(
    editableMemory(agent).map(async (file) => {
      const text = (await readMemoryFile(root, file)) ?? starterText(file);
      return { file, base: sha256(text), text };
    }),
  );
}

/**
 * Writes the files the user changed and records them as the user's. Missing files are created
 * first, as a turn would find them. When a file the user changed was changed on disk since it was
 * read (an agent wrote it meanwhile), nothing is written: saving the copy would lose that change.
 * Returns the files written, relative to `.offrun/memory`.
 */
export async function applyMemoryEdit(
  root: string,
  agent: string | undefined,
  files: readonly MemoryEditFile[],
): Promise<string[]> {
  const allowed = new Set(editableMemory(agent));
  const stray = files.find((f) => !allowed.has(f.file));
  if (stray) {
    throw new OffrunError(
      "invalid_input",
      `A memory edit${agent === undefined ? "" : ` of ${agent}`} writes only ${[...allowed].join(", ")}, not ${stray.file}.`,
    );
  }
  await (agent === undefined ? ensureConventions(root) : ensureMemory(root, agent));
  const edited = files.filter((f) => sha256(f.text) !== f.base);
  if (edited.length === 0) return [];
  // Under the lock turns take to record their memory changes: a turn ending now sees the edit as recorded.
  return updateRecorded(root, async (recorded) => {
    const moved: string[] = [];
    for (const f of edited) {
      const now = await readMemoryFile(root, f.file);
      if (now === undefined || sha256(now) !== f.base) moved.push(f.file);
    }
    if (moved.length > 0) {
      throw new OffrunError(
        "conflict",
        `${moved.join(", ")} changed while you edited ${moved.length === 1 ? "it" : "them"}, so saving your copy would lose that change. Nothing was changed.`,
      );
    }
    const at = new Date().toISOString();
    await fs.mkdir(snapshotPaths(root).blobs, { recursive: true });
    for (const f of edited) {
      const full = path.join(projectPaths(root).memory, f.file);
      await fs.mkdir(path.dirname(full), { recursive: true });
      await writeTextAtomic(full, f.text, { shared: true });
      const sha = sha256(f.text);
      await storeBlob(root, sha, f.text);
      recorded[f.file] = { sha, at };
    }
    return edited.map((f) => f.file);
  });
}
