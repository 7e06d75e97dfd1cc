import fs from "node:fs/promises";
import path from "node:path";
import { OffrunError } from "../foundation/errors.js";
import { git } from "../git/repo.js";
import { isInside, type GitScope } from "./policy.js";

/**
 * The git folder as the agent's branch needs it (policy.ts `GitScope`). The branch's ref folder
 * and its log folder are made if missing (a repository whose refs were packed has neither): a
 * commit writes its lock file there.
 */
export async function gitScope(worktree: string, branch: string | undefined): Promise<GitScope> {
  const found = await git(worktree, ["rev-parse", "--path-format=absolute", "--git-common-dir", "--git-dir"], {
    timeoutMs: 10_000,
  }).catch((error: unknown) => {
    throw new OffrunError(
      "not_found",
      `The sandbox needs the worktree's git folder, and \`git rev-parse\` failed in ${worktree}: ${error instanceof Error ? error.message : String(error)}. Check that the worktree still exists (\`git worktree list\`).`,
    );
  });
  const [commonDir, gitDir] = found.stdout.trim().split("\n");
  if (!commonDir || !gitDir)
    throw new OffrunError("not_found", `git did not say where the git folder of ${worktree} is.`);
  const heads = path.join(commonDir, "refs", "heads");
  const branchRef = path.join(heads, ...(branch ?? "").split("/"));
  if (!branch || !isInside(branchRef, heads) || branchRef === heads) {
    throw new OffrunError(
      "invalid_input",
      `The sandbox needs the agent's branch, and ${JSON.stringify(branch)} is not one.`,
    );
  }
  const refFolder = path.dirname(branchRef);
  const logFolder = path.join(commonDir, "logs", path.relative(commonDir, refFolder));
  await Promise.all([fs.mkdir(refFolder, { recursive: true }), fs.mkdir(logFolder, { recursive: true })]);
  const own = new Set([branchRef, path.join(logFolder, path.basename(branchRef))]);
  const others = [...(await filesUnder(refFolder)), ...(await filesUnder(logFolder))].filter((file) => !own.has(file));
  return { commonDir, gitDir, branchRef, otherRefs: others };
}

/** The files that tell git where a worktree's repository is, and the object store's alternates. */
export function linksOf(scope: GitScope, worktree: string): string[] {
  return [
    path.join(worktree, ".git"),
    path.join(scope.gitDir, "commondir"),
    path.join(scope.gitDir, "gitdir"),
    path.join(scope.gitDir, "config.worktree"),
    path.join(scope.commonDir, "objects", "info", "alternates"),
  ];
}

async function filesUnder(folder: string): Promise<string[]> {
  const entries = await fs.readdir(folder, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => !entry.isDirectory()).map((entry) => path.join(entry.parentPath, entry.name));
}
