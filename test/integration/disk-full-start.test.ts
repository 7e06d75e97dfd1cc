import fs from "node:fs/promises";
import path from "node:path";
import { git, makeRepo, makeSandbox, runOffrun, type Sandbox } from "../helpers/offrun.js";
import { fixture, writeStubCli } from "../helpers/stub-cli.js";
import { itWithTmpfs, leaveFree, mountTmpfs, unmountTmpfs } from "../helpers/tmpfs.js";

// A start on a nearly full disk (a real small tmpfs): it fails saying the disk is full, and
// undoes what it made, so the same name starts once there is room.

let box: Sandbox;
let disk: string | undefined;
beforeAll(async () => {
  box = await makeSandbox("offrun-dstart-");
});
afterAll(async () => {
  await box?.cleanup().catch(() => undefined);
  if (disk) await unmountTmpfs(disk);
});

const exists = (file: string) =>
  fs.access(file).then(
    () => true,
    () => false,
  );

itWithTmpfs(
  "a start on a full disk says the disk is full, not that the branch exists, and leaves nothing behind",
  async () => {
    // Broke: "Branch offrun/filler already exists" (it did not), and the branch, the record and an
    // empty .worktrees/ were left behind.
    disk = path.join(box.dir, "disk");
    await mountTmpfs(disk, "4m");
    // A checkout needs room for this file: about 48 KB free is not enough.
    const repo = await makeRepo(path.join(disk, "repo"), box.env, {
      "README.md": "# demo\n",
      "data.txt": "some data of the project\n".repeat(12_000),
    });
    const bin = await writeStubCli(path.join(box.dir, "stub", "claude"), {
      replay: fixture("claude", "2.1.332", "text-reply"),
    });
    const env = { ...box.env, OFFRUN_CLAUDE_BIN: bin };
    const offrun = (...args: string[]) => runOffrun(args, { env, cwd: repo });
    // The companion first, so its own start is not what meets the full disk.
    expect(await offrun("companion", "start")).toSucceed();
    const filler = path.join(disk, "filler");
    await leaveFree(filler, 48 * 1024);

    const failed = await offrun("start", "--name", "filler", "fill it");
    expect(failed.exitCode).not.toBe(0);
    expect(failed.stderr).toMatch(
      new RegExp(
        `Could not start filler: the disk holding ${repo} is full \\(\\d+ KB free\\): free space, then start it again\\. Nothing was left behind\\.`,
      ),
    );
    expect(failed.stderr).not.toContain("already exists");
    expect(await git(repo, box.env, ["branch", "--list", "offrun/*"])).toBe("");
    expect(await exists(path.join(repo, ".offrun", "agents", "filler.json"))).toBe(false);
    expect(await exists(path.join(repo, ".worktrees"))).toBe(false);
    expect(await exists(path.join(repo, ".offrun", "memory", "filler"))).toBe(false);
    expect(await git(repo, box.env, ["worktree", "list", "--porcelain"])).not.toContain(".worktrees");

    // Room again: the same name starts.
    await fs.rm(filler);
    expect(await offrun("start", "--wait", "--name", "filler", "fill it")).toSucceed();
    const ls = JSON.parse((await offrun("ls", "--json")).stdout) as { agents: { name: string; status: string }[] };
    expect(ls.agents).toEqual([expect.objectContaining({ name: "filler", status: "idle" })]);
  },
  90_000,
);

test("a start whose setup fails keeps the worktree and says how to remove it; a taken branch is left alone", async () => {
  const repo = await makeRepo(path.join(box.dir, "setup-repo"), box.env, {
    "README.md": "# demo\n",
    ".offrun/config.json": JSON.stringify({ setup: [["node", "-e", "process.exit(3)"]] }),
  });
  const bin = await writeStubCli(path.join(box.dir, "stub2", "claude"), {
    replay: fixture("claude", "2.1.332", "text-reply"),
  });
  const env = { ...box.env, OFFRUN_HOME: path.join(box.dir, "oh2"), OFFRUN_CLAUDE_BIN: bin };
  const offrun = (...args: string[]) => runOffrun(args, { env, cwd: repo });
  // The user's own setup, trusted (a repository's setup runs only then: README.md#trust).
  expect(await offrun("trust", "--yes")).toSucceed();
  const failed = await offrun("start", "--name", "broken", "set it up");
  expect(failed.stderr).toContain("the worktree is kept at");
  expect(failed.stderr).toContain("Remove it with `offrun discard broken --force`.");
  expect(await exists(path.join(repo, ".worktrees", "broken"))).toBe(true);
  expect(await exists(path.join(repo, ".offrun", "agents", "broken.json"))).toBe(true);
  expect(await offrun("discard", "broken", "--force")).toSucceed();

  // The user's own branch of that name: refused, and kept.
  await git(repo, box.env, ["branch", "offrun/mine"]);
  const taken = await offrun("start", "--name", "mine", "take it");
  expect(taken.stderr).toContain("Branch offrun/mine already exists");
  expect((await git(repo, box.env, ["branch", "--list", "offrun/mine"])).trim()).toBe("offrun/mine");
  expect(await exists(path.join(repo, ".offrun", "agents", "mine.json"))).toBe(false);
  // A name Offrun picks from the task steers clear of it (it failed as "already exists" before);
  // this project's setup fails, which keeps the worktree under the name it picked.
  const named = await offrun("start", "mine");
  expect(named.stderr).toContain("Remove it with `offrun discard mine-2 --force`.");
  const branches = await git(repo, box.env, ["for-each-ref", "--format=%(refname:short)", "refs/heads/offrun/"]);
  expect(branches.trim().split("\n")).toEqual(["offrun/broken", "offrun/mine", "offrun/mine-2"]);
}, 60_000);
