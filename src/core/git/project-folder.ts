import { discoverCheckout } from "./discover.js";
import { findRepoRoot, git } from "./repo.js";

/**
 * What a folder the user picked as a new project is to Offrun: agents branch worktrees from a
 * commit, so a folder needs a repository around it, and that repository a first commit.
 */
export type ProjectFolder =
  | { kind: "repository"; root: string }
  | { kind: "not-a-repository"; dir: string }
  | { kind: "no-commits"; root: string };

/** Reads `dir`'s state; errors other than these two (a bare repository, an unreadable one) are thrown. */
export async function checkProjectFolder(dir: string): Promise<ProjectFolder> {
  // No `.git` in it or above it: git would say the same, without a spawn.
  if ((await discoverCheckout(dir)) === "outside") return { kind: "not-a-repository", dir };
  try {
    return { kind: "repository", root: await findRepoRoot(dir) };
  } catch (error) {
    const top = await git(dir, ["rev-parse", "--show-toplevel"], { timeoutMs: 30_000 }).catch(() => undefined);
    const root = top?.stdout.trim();
    if (!root) throw error;
    const head = await git(root, ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], {
      okExitCodes: [1],
      timeoutMs: 30_000,
    });
    if (head.exitCode === 1) return { kind: "no-commits", root };
    throw error;
  }
}

/**
 * Makes `dir` a project agents can start in: `git init` where there is no repository, and an
 * empty first commit where there is none. The user's files are not committed (what belongs in the
 * repository is theirs to say); a folder that is one already is left as it is, so this can be
 * repeated. Returns the repository's top folder.
 */
export async function initRepository(dir: string): Promise<string> {
  const state = await checkProjectFolder(dir);
  if (state.kind === "repository") return state.root;
  if (state.kind === "not-a-repository") await git(dir, ["init", "--quiet"], { timeoutMs: 30_000 });
  const root = state.kind === "no-commits" ? state.root : dir;
  await git(root, ["commit", "--allow-empty", "--quiet", "-m", "Initial commit"], { timeoutMs: 30_000 });
  return findRepoRoot(root);
}
