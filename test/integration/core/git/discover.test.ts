import fs from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { discoverCheckout, readHeadAndBranches } from "../../../../src/core/git/discover.js";
import { findRepoRoot } from "../../../../src/core/git/repo.js";
import { makeRepo, makeSandbox, type Sandbox } from "../../../helpers/offrun.js";

// `offrun ls` and `show` find the checkout around them without running git when the layout is the
// plain one (core/git/discover.ts). Each case is checked against git's own answer in a real
// repository: where discovery answers, it answers what git does; where it cannot be sure, it asks git.

let box: Sandbox;
let root: string;
const git = (cwd: string, ...args: string[]) => execa("git", args, { cwd, env: box.env, extendEnv: false });
const gitRoot = async (dir: string) =>
  path.dirname((await git(dir, "rev-parse", "--path-format=absolute", "--git-common-dir")).stdout.trim());

beforeAll(async () => {
  box = await makeSandbox("offrun-discover-");
  root = await fs.realpath(await makeRepo(path.join(box.dir, "app"), box.env, { "src/a.ts": "export {};\n" }));
});
afterAll(async () => {
  await box.cleanup();
});

test("a plain checkout, from its top or a folder in it, or through a symlink, is found without git", async () => {
  const link = path.join(box.dir, "link-to-src");
  await fs.symlink(path.join(root, "src"), link);
  for (const dir of [root, path.join(root, "src"), link]) {
    expect(await discoverCheckout(dir)).toEqual({ root });
    expect(await gitRoot(dir)).toBe(root);
    expect(await findRepoRoot(dir)).toBe(root);
  }
});

test("a detached HEAD and a branch kept only in packed-refs are found too", async () => {
  await git(root, "pack-refs", "--all");
  await expect(fs.stat(path.join(root, ".git", "refs", "heads", "main"))).rejects.toThrow();
  expect(await discoverCheckout(root)).toEqual({ root });
  await git(root, "checkout", "-q", "--detach");
  expect(await discoverCheckout(root)).toEqual({ root });
  await git(root, "checkout", "-q", "main");
});

test("a linked worktree, a repository without commits and GIT_CEILING_DIRECTORIES are left to git", async () => {
  const worktree = path.join(box.dir, "wt");
  await git(root, "worktree", "add", "-q", "-b", "side", worktree);
  expect(await discoverCheckout(worktree)).toBe("ask-git");
  expect(await findRepoRoot(worktree)).toBe(root);

  const empty = path.join(box.dir, "empty");
  await fs.mkdir(empty);
  await git(empty, "init", "-q");
  expect(await discoverCheckout(empty)).toBe("ask-git");
  await expect(findRepoRoot(empty)).rejects.toThrow("has no commits yet");

  expect(await discoverCheckout(root, { GIT_CEILING_DIRECTORIES: box.dir })).toBe("ask-git");
});

test("a bare or moved work tree in the config is left to git", async () => {
  const other = await fs.realpath(await makeRepo(path.join(box.dir, "other"), box.env));
  await git(other, "config", "core.worktree", other);
  expect(await discoverCheckout(other)).toBe("ask-git");
  expect(await findRepoRoot(other)).toBe(other);
});

test("a folder with no .git above it is outside, with the message that says what to do", async () => {
  const plain = path.join(box.dir, "plain");
  await fs.mkdir(plain);
  expect(await discoverCheckout(plain)).toBe("outside");
  await expect(git(plain, "rev-parse", "--git-dir")).rejects.toThrow(/not a git repository/);
  await expect(findRepoRoot(plain)).rejects.toThrow(
    `${plain} is not inside a git repository. Run \`git init\` there or pass --project DIR.`,
  );
});

describe("readHeadAndBranches: what a start reads before it writes anything", () => {
  // git's own answer, as lookBeforeStart asked it before: HEAD's commit and branch, every branch.
  const gitAnswer = async (dir: string, prefix: string) => {
    const [commit, branch, ...branches] = (
      await git(dir, "rev-parse", "HEAD^{commit}", "--abbrev-ref", "HEAD", "--branches")
    ).stdout.split("\n");
    return { commit, branch, branches: branches.filter((b) => b.startsWith(prefix)).sort() };
  };
  const read = async (dir: string, prefix: string) => {
    const answer = await readHeadAndBranches(dir, prefix);
    return answer && { ...answer, branches: [...answer.branches].sort() };
  };
  let repo: string;
  beforeAll(async () => {
    repo = await fs.realpath(await makeRepo(path.join(box.dir, "refs"), box.env));
  });

  test("loose, packed and both: the same commit, branch and names as git", async () => {
    for (const branch of ["offrun/fix", "offrun/deep/name", "offrunner", "feature"]) await git(repo, "branch", branch);
    expect(await read(repo, "offrun/")).toEqual(await gitAnswer(repo, "offrun/"));
    expect((await read(repo, "offrun/"))?.branches).toEqual(["offrun/deep/name", "offrun/fix"]);
    // Every branch when the prefix names no folder of its own.
    expect(await read(repo, "")).toEqual(await gitAnswer(repo, ""));
    expect(await read(repo, "offrun")).toEqual(await gitAnswer(repo, "offrun"));
    // All packed, HEAD's branch included; then a new loose one beside them, and a moved branch
    // whose loose ref wins over its packed line.
    await git(repo, "pack-refs", "--all");
    expect(await read(repo, "offrun/")).toEqual(await gitAnswer(repo, "offrun/"));
    await git(repo, "branch", "offrun/late");
    await fs.writeFile(path.join(repo, "more.txt"), "more\n");
    await git(repo, "add", "more.txt");
    await git(repo, "commit", "-q", "-m", "more");
    expect(await read(repo, "offrun/")).toEqual(await gitAnswer(repo, "offrun/"));
    expect((await read(repo, "offrun/"))?.branches).toEqual(["offrun/deep/name", "offrun/fix", "offrun/late"]);
    // A deleted packed branch is gone from packed-refs too.
    await git(repo, "branch", "-D", "offrun/fix");
    expect(await read(repo, "offrun/")).toEqual(await gitAnswer(repo, "offrun/"));
  });

  test("a lock file is no branch; a detached HEAD, another ref storage or layout are left to git", async () => {
    await fs.writeFile(path.join(repo, ".git", "refs", "heads", "offrun", "busy.lock"), "");
    expect((await read(repo, "offrun/"))?.branches).not.toContain("offrun/busy.lock");
    expect(await read(repo, "offrun/")).toEqual(await gitAnswer(repo, "offrun/"));
    await fs.rm(path.join(repo, ".git", "refs", "heads", "offrun", "busy.lock"));

    await git(repo, "checkout", "-q", "--detach");
    expect(await readHeadAndBranches(repo, "offrun/")).toBeUndefined();
    await git(repo, "checkout", "-q", "main");
    expect(await readHeadAndBranches(repo, "offrun/")).toBeDefined();

    const config = path.join(repo, ".git", "config");
    const original = await fs.readFile(config, "utf8");
    await fs.appendFile(config, "[extensions]\n\trefStorage = reftable\n");
    expect(await readHeadAndBranches(repo, "offrun/")).toBeUndefined();
    await fs.writeFile(config, original);

    const worktree = path.join(box.dir, "refs-wt");
    await git(repo, "worktree", "add", "-q", "-b", "side-2", worktree);
    expect(await readHeadAndBranches(worktree, "offrun/")).toBeUndefined();
    // A branch with no commit yet (a repository just made): git says so.
    const empty = path.join(box.dir, "refs-empty");
    await fs.mkdir(empty);
    await git(empty, "init", "-q");
    expect(await readHeadAndBranches(empty, "offrun/")).toBeUndefined();
  });
});
