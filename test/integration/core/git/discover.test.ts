import fs from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { discoverCheckout } from "../../../../src/core/git/discover.js";
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
