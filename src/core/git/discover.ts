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
  const config = await fs.readFile(path.join(dotGit, "config"), "utf8").catch(() => undefined);
  return config !== undefined && !/^\s*(bare\s*=\s*true|worktree\s*=|\[include)/im.test(config);
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
