import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import * as z from "zod";
import { OffrunError } from "../foundation/errors.js";
import { addExcludes } from "../git/repo.js";
import { projectPaths } from "../foundation/paths.js";
import { makePrivateDir, PRIVATE_FILE_MODE } from "../foundation/private-files.js";
import { readJsonFile, withFileLock, writeJsonAtomic } from "../foundation/store.js";
import { readTextInside } from "../foundation/inside.js";
import { injectFault } from "../foundation/fault-points.js";
import { failedForRoom } from "../foundation/disk-full.js";

/**
 * Snapshots of `.offrun/memory`, kept in `.offrun/memory-snapshots/` of the project: content
 * blobs named by their sha256, each agent's baseline (the memory as its current turn found it)
 * and the last recorded state of every file. They live beside the chat logs whose
 * memory_change events point at them, not in ~/.offrun/cache: a cache may be cleared, and
 * without the blobs no change could be reverted. Private like the chats: excluded from git.
 */

/** Memory files above this size are not read into snapshots (memory is notes, not data). */
export const MAX_MEMORY_FILE_BYTES = 1_000_000;

/** File (relative to `.offrun/memory`, with `/`) to sha256 of its content. */
export type MemoryState = Record<string, string>;

const baselineSchema = z.object({
  version: z.literal(1),
  takenAt: z.string(),
  files: z.record(z.string(), z.string()),
  /** The harness and login the agent last received its memory on: another one is a new session. */
  // `account` names the login: the key is kept for files of earlier versions.
  briefed: z.object({ harness: z.string(), account: z.string() }).optional(),
});
export type Baseline = z.infer<typeof baselineSchema>;

const recordedSchema = z.object({
  version: z.literal(1),
  files: z.record(z.string(), z.object({ sha: z.string().nullable(), at: z.string() })),
});
export type Recorded = z.infer<typeof recordedSchema>["files"];

export function snapshotPaths(root: string) {
  const dir = projectPaths(root).memorySnapshots;
  return {
    dir,
    blobs: path.join(dir, "blobs"),
    blob: (sha: string) => path.join(dir, "blobs", sha),
    baseline: (agent: string) => path.join(dir, "agents", `${agent}.json`),
    recorded: path.join(dir, "recorded.json"),
  };
}

export function sha256(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/**
 * The sha of each memory file as last read, by path, with what identified that version on disk.
 * Every turn scans the whole memory (to see writes to other agents' files too), which is on the
 * way from `offrun start` to the CLI's spawn: the long-running companion reads and stores only
 * the files whose size, mtime or inode changed since it last looked.
 */
const known = new Map<string, { size: number; mtimeMs: number; ino: number; sha: string }>();

/** A memory file read whose snapshot could not be stored: its text is kept in memory for this turn only. */
export interface LostSnapshot {
  rel: string;
  sha: string;
  text: string;
  error: unknown;
}

/**
 * Reads every memory file (unchanged ones from the cache), stores each content as a blob, and
 * returns the state. With `lost`, a blob a full disk has no room for does not stop the scan: the
 * file is in the state all the same and the blob is listed there, for the turn to report.
 */
export async function scanMemory(root: string, lost?: LostSnapshot[]): Promise<MemoryState> {
  const base = projectPaths(root).memory;
  const state: MemoryState = {};
  const entries = await fs.readdir(base, { recursive: true, withFileTypes: true }).catch(() => []);
  const snaps = snapshotPaths(root);
  await makePrivateDir(snaps.blobs);
  await Promise.all(
    entries.map(async (entry) => {
      // Symlinks are skipped: following one could pull any file on the machine into the log.
      if (!entry.isFile()) return;
      const full = path.join(entry.parentPath, entry.name);
      const sha = await shaOf(root, full, path.relative(base, full).split(path.sep).join("/"), lost);
      if (sha) state[path.relative(base, full).split(path.sep).join("/")] = sha;
    }),
  );
  return state;
}

async function shaOf(root: string, full: string, rel: string, lost?: LostSnapshot[]): Promise<string | undefined> {
  const stat = await fs.stat(full).catch(() => undefined);
  if (!stat || stat.size > MAX_MEMORY_FILE_BYTES) return undefined;
  const seen = known.get(full);
  // Same size, mtime and inode: the same bytes (an editor's rename-into-place changes the inode).
  if (seen && seen.size === stat.size && seen.mtimeMs === stat.mtimeMs && seen.ino === stat.ino) return seen.sha;
  const text = await readTextInside(root, full);
  if (text === undefined) return undefined;
  const sha = sha256(text);
  try {
    await storeBlob(root, sha, text);
  } catch (error) {
    if (!lost || !failedForRoom(error)) throw error;
    // Not cached as known: the next scan tries to store it again.
    lost.push({ rel, sha, text, error });
    return sha;
  }
  known.set(full, { size: stat.size, mtimeMs: stat.mtimeMs, ino: stat.ino, sha });
  return sha;
}

export async function storeBlob(root: string, sha: string, text: string): Promise<void> {
  injectFault("snapshot", snapshotPaths(root).blob(sha));
  // "wx": blobs never change once written; an existing one is the same bytes.
  await fs
    .writeFile(snapshotPaths(root).blob(sha), text, { flag: "wx", mode: PRIVATE_FILE_MODE })
    .catch((error: unknown) => {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    });
}

/** A blob's text; throws not_found naming what was lost when the snapshot folder was cleared. */
export async function readBlob(root: string, sha: string): Promise<string> {
  try {
    return await fs.readFile(snapshotPaths(root).blob(sha), "utf8");
  } catch (error) {
    throw new OffrunError(
      "not_found",
      `The snapshot ${sha.slice(0, 12)} is missing from ${snapshotPaths(root).blobs}, so this change cannot be undone automatically. Edit the file by hand (\`offrun memory edit\`).`,
      { cause: error },
    );
  }
}

export async function readBaseline(root: string, agent: string): Promise<Baseline | undefined> {
  return readJsonFile(snapshotPaths(root).baseline(agent), baselineSchema).catch(() => undefined);
}

export async function writeBaseline(root: string, agent: string, baseline: Baseline): Promise<void> {
  await writeJsonAtomic(snapshotPaths(root).baseline(agent), baseline, { fsync: false });
}

/** Keeps the snapshots out of git, like the chat logs they belong to (idempotent). */
export async function excludeSnapshots(root: string): Promise<void> {
  await addExcludes(root, [".offrun/memory-snapshots/"], "Offrun: memory snapshots");
}

/**
 * Read-change-write of the last recorded state of every memory file, under a lock: turns of
 * several agents end at the same time, and the CLI's revert and edit write it too.
 */
export async function updateRecorded<T>(root: string, fn: (recorded: Recorded) => Promise<T>): Promise<T> {
  const file = snapshotPaths(root).recorded;
  return withFileLock(file, async () => {
    const current = (await readJsonFile(file, recordedSchema).catch(() => undefined))?.files ?? {};
    const result = await fn(current);
    await writeJsonAtomic(file, { version: 1, files: current }, { fsync: false });
    return result;
  });
}

/** The current text of a memory file (relative to `.offrun/memory`), or undefined when absent. */
export async function readMemoryFile(root: string, rel: string): Promise<string | undefined> {
  return readTextInside(root, path.join(projectPaths(root).memory, rel));
}
