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
  const [refFolder, logFolder] = refFolders({ commonDir, branchRef });
  await Promise.all([fs.mkdir(refFolder, { recursive: true }), fs.mkdir(logFolder, { recursive: true })]);
  await unpackOtherRefs(commonDir, refFolder, branchRef);
  const own = new Set([branchRef, path.join(logFolder, path.basename(branchRef))]);
  const others = [...(await filesUnder(refFolder)), ...(await filesUnder(logFolder))].filter((file) => !own.has(file));
  return { commonDir, gitDir, branchRef, otherRefs: others };
}

/** The folder of the branch's loose ref, and of its log: the turn writes there (policy.ts `gitWrites`). */
export function refFolders(scope: Pick<GitScope, "commonDir" | "branchRef">): [string, string] {
  const refFolder = path.dirname(scope.branchRef);
  return [refFolder, path.join(scope.commonDir, "logs", path.relative(scope.commonDir, refFolder))];
}

/**
 * Another agent's branch that lives only in `packed-refs` (after a `git gc`, a `git pack-refs`)
 * has no loose file to hold read-only, and a loose file the turn made under its name would take
 * its place: git reads a loose ref before the packed one. Each gets a loose file with the same
 * commit, which the policy then holds like the others. Written as git writes a ref, through its
 * `.lock` (`git update-ref` writes nothing when the value does not change); a ref being written
 * (its lock there) is left to its writer.
 */
async function unpackOtherRefs(commonDir: string, refFolder: string, branchRef: string): Promise<void> {
  const packed = await fs.readFile(path.join(commonDir, "packed-refs"), "utf8").catch(() => "");
  const prefix = `${path.relative(commonDir, refFolder).split(path.sep).join("/")}/`;
  for (const match of packed.matchAll(/^([0-9a-f]{40,64}) (\S+)$/gm)) {
    const [, id, ref] = match as unknown as [string, string, string];
    const file = path.join(commonDir, ...ref.split("/"));
    if (!ref.startsWith(prefix) || file === branchRef || !isInside(file, refFolder)) continue;
    if (
      await fs.lstat(file).then(
        () => true,
        () => false,
      )
    )
      continue;
    await fs.mkdir(path.dirname(file), { recursive: true });
    const lock = await fs.open(`${file}.lock`, "wx").catch(() => undefined);
    if (!lock) continue;
    try {
      await lock.writeFile(`${id}\n`);
    } finally {
      await lock.close();
    }
    await fs.rename(`${file}.lock`, file);
  }
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
