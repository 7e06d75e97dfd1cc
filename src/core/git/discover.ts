import type { Dirent } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";

/**
 * Git's own search for the repository around a folder, for the one layout that needs no git: a
 * main checkout whose `.git` is a folder and whose HEAD names a commit. `offrun ls` and `show` run
 * no git at all that way (a spawn of git is most of their time on a slow machine). Anything else
 * (a linked worktree or submodule, whose `.git` is a file; a repository without commits; a bare or
 * moved work tree, includes in its config; another user's repository, which git may refuse;
 * GIT_CEILING_DIRECTORIES) is left to git itself.
 */

export type Discovered = { root: string } | "outside" | "ask-git";

export async function discoverCheckout(dir: string, env: NodeJS.ProcessEnv = process.env): Promise<Discovered> {
  if (env.GIT_CEILING_DIRECTORIES || env.GIT_DISCOVERY_ACROSS_FILESYSTEM) return "ask-git";
  let current = await fs.realpath(dir).catch(() => undefined);
  if (current === undefined) return "ask-git";
  for (;;) {
    const dotGit = path.join(current, ".git");
    const stat = await fs.lstat(dotGit).catch(() => undefined);
    if (stat) {
      if (!stat.isDirectory() || (process.getuid && stat.uid !== process.getuid())) return "ask-git";
      return (await plainConfig(dotGit)) && (await headResolves(dotGit)) ? { root: current } : "ask-git";
    }
    const parent = path.dirname(current);
    if (parent === current) return "outside";
    current = parent;
  }
}

/** No setting that moves the work tree or makes the repository bare, nor one git reads from elsewhere. */
async function plainConfig(dotGit: string): Promise<boolean> {
  return isPlainConfig(await fs.readFile(path.join(dotGit, "config"), "utf8").catch(() => undefined));
}

const isPlainConfig = (config: string | undefined) =>
  config !== undefined && !/^\s*(bare\s*=\s*true|worktree\s*=|\[include)/im.test(config);

/** What a start reads before it writes anything: HEAD's branch and commit, and the branches under a prefix. */
export interface HeadAndBranches {
  commit: string;
  /** The branch HEAD is on, by its short name (main). */
  branch: string;
  /** Every branch whose short name starts with the prefix, by its short name. */
  branches: string[];
}

/**
 * HEAD's branch and commit and the branches under `prefix`, read from the files git keeps them in
 * (a spawn of git costs a start 10 to 15 ms on a slow machine), for the layout discoverCheckout
 * reads too, with loose and packed refs. Undefined leaves it to git: another layout, ref storage
 * other than files, a detached HEAD (git checks that it names a commit), or a branch without one.
 */
export async function readHeadAndBranches(root: string, prefix: string): Promise<HeadAndBranches | undefined> {
  const dotGit = path.join(root, ".git");
  const stat = await fs.lstat(dotGit).catch(() => undefined);
  if (!stat?.isDirectory() || (process.getuid && stat.uid !== process.getuid())) return undefined;
  const [config, head, packedText] = await Promise.all(
    ["config", "HEAD", "packed-refs"].map((file) =>
      fs.readFile(path.join(dotGit, file), "utf8").catch(() => undefined),
    ),
  );
  if (!isPlainConfig(config) || /^\s*refstorage\s*=/im.test(config!)) return undefined;
  const ref = /^ref: (refs\/heads\/\S+)\n?$/.exec(head ?? "")?.[1];
  if (ref === undefined || !safeRef(ref)) return undefined;
  const packed = parsePackedRefs(packedText ?? "");
  const loose = await fs.readFile(path.join(dotGit, ref), "utf8").catch(() => undefined);
  const commit = loose === undefined ? packed.get(ref) : /^([0-9a-f]{40}|[0-9a-f]{64})\n?$/.exec(loose)?.[1];
  if (commit === undefined) return undefined;
  const under = `refs/heads/${prefix}`;
  // The folder the prefix names (refs/heads/offrun/ for "offrun/"), walked; a lock file is no branch.
  const folder = under.slice(0, under.lastIndexOf("/"));
  const names = new Set([...packed.keys()].filter((name) => name.startsWith(under)));
  for (const file of await looseRefs(dotGit, folder)) if (file.startsWith(under)) names.add(file);
  return { commit, branch: ref.slice("refs/heads/".length), branches: [...names].map((n) => n.slice(11)) };
}

/** A ref name with no part that leaves the refs folder. */
const safeRef = (ref: string) => !ref.split("/").some((part) => part === "" || part === "." || part === "..");

/** packed-refs' lines "<sha> <ref>" (a "^<sha>" line peels the tag above it, and a "#" line is its header). */
function parsePackedRefs(text: string): Map<string, string> {
  const refs = new Map<string, string>();
  for (const line of text.split("\n")) {
    const match = /^([0-9a-f]{40}|[0-9a-f]{64}) (refs\/\S+)$/.exec(line);
    if (match) refs.set(match[2]!, match[1]!);
  }
  return refs;
}

/** The loose refs under `folder` (refs/heads/offrun), by their full names. */
async function looseRefs(dotGit: string, folder: string): Promise<string[]> {
  if (!safeRef(folder)) return [];
  const entries = await fs
    .readdir(path.join(dotGit, folder), { recursive: true, withFileTypes: true })
    .catch((): Dirent[] => []);
  return entries
    .filter((entry) => entry.isFile() && !entry.name.endsWith(".lock"))
    .map((entry) => path.relative(dotGit, path.join(entry.parentPath, entry.name)).split(path.sep).join("/"));
}

/** HEAD is a commit's id, or names a branch that has one (loose, or in packed-refs). */
async function headResolves(dotGit: string): Promise<boolean> {
  const head = (await fs.readFile(path.join(dotGit, "HEAD"), "utf8").catch(() => "")).trim();
  if (/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(head)) return true;
  const ref = /^ref: (refs\/heads\/\S+)$/.exec(head)?.[1];
  if (ref === undefined || ref.split("/").includes("..")) return false;
  const loose = await fs.readFile(path.join(dotGit, ref), "utf8").catch(() => undefined);
  if (loose !== undefined) return /^[0-9a-f]{40}/.test(loose);
  const packed = await fs.readFile(path.join(dotGit, "packed-refs"), "utf8").catch(() => "");
  return packed.split("\n").some((line) => line.endsWith(` ${ref}`) && /^[0-9a-f]{40}/.test(line));
}
