import fs from "node:fs/promises";
import path from "node:path";
import { describeError } from "../foundation/errors.js";
import { userPaths } from "../foundation/paths.js";
import { reportStateProblem } from "../foundation/state-problems.js";
import { makePrivateDir, PRIVATE_FILE_MODE } from "../foundation/private-files.js";

/**
 * Offrun's own state files (agent records, chat logs) that the checkout's git tracks. Offrun writes
 * them untracked (info/exclude names their folders); one git tracks came with the repository: a
 * teammate committed it, or someone crafted it. Such a file describes no agent of this machine, so
 * it is ignored, whatever it says (a pid to signal, a worktree to delete, events to revert).
 *
 * `offrun ls` runs no git in a plain checkout, so git's index is read directly: when it names no
 * path under these folders (the common case, decided by one read) nothing is tracked; otherwise, or
 * when the index is one this reader does not parse (version 4 compresses paths), git is asked. The
 * answer is kept in the cache folder against the index's identity (inode, size, change time), so
 * a listing reads a big index only once after git rewrote it.
 */

const STATE_FOLDERS = [".offrun/agents/", ".offrun/chats/"] as const;

/** The repository-relative paths, under Offrun's state folders, that git tracks in `root`. */
export async function trackedStateFiles(root: string): Promise<ReadonlySet<string>> {
  const file = await indexFile(root);
  const stat = file && (await fs.stat(file, { bigint: true }).catch(() => undefined));
  // No index yet (a repository without a commit or an add): nothing is tracked.
  if (!file || !stat) return NONE;
  // The index's identity, and the root it belongs to (two roots may share a cache file's name).
  const identity = `${stat.ino}:${stat.size}:${stat.ctimeNs}:${stat.mtimeNs}:${root}`;
  const cache = path.join(userPaths().cache, "tracked-state", `${nameOf(root)}.json`);
  const cached = await fs.readFile(cache, "utf8").then(parseCache, () => undefined);
  if (cached?.identity === identity) return new Set(cached.files);
  const index = await fs.readFile(file);
  const version = index.length >= 12 && index.toString("latin1", 0, 4) === "DIRC" ? index.readUInt32BE(4) : 0;
  const unlisted = (version === 2 || version === 3) && !STATE_FOLDERS.some((folder) => index.includes(folder));
  const files = unlisted ? NONE : await askGit(root);
  // An answer git could not give is not kept: the next listing asks again.
  if (files === undefined) return NONE;
  await writeCache(cache, { identity, files: [...files] }).catch(() => undefined);
  return files;
}

/** True when git tracks `file` (an absolute path inside `root`), given the set read for `root`. */
export function isTracked(tracked: ReadonlySet<string>, root: string, file: string): boolean {
  return tracked.size > 0 && tracked.has(path.relative(root, file).split(path.sep).join("/"));
}

const NONE: ReadonlySet<string> = new Set();

/**
 * A file name for a root: 64 bits of FNV-1a, in two 32-bit halves. A name, not a secret, and every
 * `offrun ls` in a repository makes one: loading node:crypto for it would cost 5 ms of each.
 */
function nameOf(root: string): string {
  let low = 0x811c9dc5;
  let high = 0x01000193;
  for (let i = 0; i < root.length; i++) {
    const code = root.charCodeAt(i);
    low = Math.imul(low ^ code, 0x01000193) >>> 0;
    high = Math.imul(high ^ code ^ (low >>> 24), 0x01000193) >>> 0;
  }
  return `${high.toString(16).padStart(8, "0")}${low.toString(16).padStart(8, "0")}`;
}

/** The checkout's index: `.git/index`, or the one of the git folder a `.git` file points to. */
async function indexFile(root: string): Promise<string | undefined> {
  const dotGit = path.join(root, ".git");
  const stat = await fs.lstat(dotGit).catch(() => undefined);
  if (!stat) return undefined;
  let gitDir = dotGit;
  if (stat.isFile()) {
    const pointer = /^gitdir: (.+)$/m.exec(await fs.readFile(dotGit, "utf8").catch(() => ""))?.[1]?.trim();
    if (!pointer) return undefined;
    gitDir = path.resolve(root, pointer);
  }
  return path.join(gitDir, "index");
}

interface Cached {
  identity: string;
  files: string[];
}

function parseCache(text: string): Cached | undefined {
  try {
    const value = JSON.parse(text) as Partial<Cached>;
    const ok = typeof value.identity === "string" && Array.isArray(value.files);
    return ok && value.files!.every((f) => typeof f === "string") ? (value as Cached) : undefined;
  } catch {
    return undefined;
  }
}

/** Written whole (a temporary file renamed over it): a torn cache is never read as an answer. */
async function writeCache(file: string, value: Cached): Promise<void> {
  // Private, as everything under ~/.offrun: it names the user's projects' files.
  await makePrivateDir(path.dirname(file));
  const temporary = `${file}.${process.pid}.tmp`;
  await fs.writeFile(temporary, JSON.stringify(value), { mode: PRIVATE_FILE_MODE });
  await fs.rename(temporary, file);
}

/**
 * git's own list. A git that cannot answer here (a repository git refuses, a broken index) fails
 * every other git call of Offrun in it too: the listing goes on without the check, and says so.
 */
async function askGit(root: string): Promise<ReadonlySet<string> | undefined> {
  const { git } = await import("./repo.js");
  try {
    const listed = await git(root, ["ls-files", "-z", "--", ...STATE_FOLDERS], { timeoutMs: 20_000 });
    return new Set(listed.stdout.split("\0").filter((line) => line !== ""));
  } catch (error) {
    reportStateProblem({
      file: path.join(root, ".git"),
      message: `Could not ask git which of Offrun's records it tracks in ${root} (${describeError(error)}); records are read without that check.`,
    });
    return undefined;
  }
}
