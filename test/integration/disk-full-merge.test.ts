import fs from "node:fs/promises";
import path from "node:path";
import { git, makeRepo, makeSandbox, runOffrun, type Sandbox } from "../helpers/offrun.js";
import { fixture, writeStubCli } from "../helpers/stub-cli.js";
import { fillToTheLastByte, itWithTmpfs, leaveFree, mountTmpfs, unmountTmpfs } from "../helpers/tmpfs.js";

// git's own full disk inside `git merge` (a real small tmpfs; the fault points only fail Offrun's
// writes): the merge says the disk is full, leaves the project as it was (no half-written index,
// no merge in progress, no file of the merge half written), and goes through once there is room.
// Broke: with no room at all, git's "Out of diskspace" was passed on as a failed `git add`; with
// room for the index only, git's merge left the new file it was writing, cut short, in the
// project's checkout.

let box: Sandbox;
const disks: string[] = [];
beforeAll(async () => {
  box = await makeSandbox("offrun-dmerge-");
});
afterAll(async () => {
  for (const disk of disks) await unmountTmpfs(disk);
  await box?.cleanup().catch(() => undefined);
});

// No room at all (git cannot even stage the worktree), and room for the small writes but not for
// the merged file in the project's checkout (git's merge itself fails).
const FILLS: [string, (filler: string) => Promise<void>][] = [
  ["no room at all", fillToTheLastByte],
  ["room for an index, not for the merged file", (filler) => leaveFree(filler, 160 * 1024)],
];

describe.each(FILLS)("%s", (_, fill) => {
  itWithTmpfs(
    "a merge that git cannot write says the disk is full and leaves the project as it was",
    async () => {
      const disk = path.join(box.dir, `disk-${disks.length}`);
      disks.push(disk);
      await mountTmpfs(disk, "4m");
      const repo = await makeRepo(path.join(disk, "repo"), box.env, { "README.md": "# demo\n" });
      const bin = await writeStubCli(path.join(box.dir, "stub", "claude"), {
        replay: fixture("claude", "2.1.332", "text-reply"),
      });
      const env = { ...box.env, OFFRUN_CLAUDE_BIN: bin };
      const offrun = (...args: string[]) => runOffrun(args, { env, cwd: repo });
      expect(await offrun("start", "--wait", "--name", "big", "write the data")).toSucceed();
      // The agent's work: a file the merge must write into the project's checkout.
      const worktree = path.join(repo, ".worktrees", "big");
      await fs.writeFile(path.join(worktree, "data.txt"), "row of generated data\n".repeat(30_000));
      await git(worktree, box.env, ["add", "data.txt"]);
      await git(worktree, box.env, ["commit", "-q", "-m", "data"]);
      const head = (await git(repo, box.env, ["rev-parse", "HEAD"])).trim();

      const filler = path.join(disk, "filler");
      await fill(filler);
      const failed = await offrun("merge", "big");
      expect(failed.exitCode).not.toBe(0);
      expect(failed.stderr).toMatch(
        new RegExp(
          `Could not merge big: the disk holding ${repo} is full \\(\\d+ KB free\\)\\. Free space, then merge again\\.`,
        ),
      );
      // The project is as it was: same commit, nothing staged or half-merged, no lock left.
      expect((await git(repo, box.env, ["rev-parse", "HEAD"])).trim()).toBe(head);
      await expect(fs.access(path.join(repo, ".git", "MERGE_HEAD"))).rejects.toThrow();
      await expect(fs.access(path.join(repo, ".git", "index.lock"))).rejects.toThrow();
      expect(
        await fs.access(path.join(repo, "data.txt")).then(
          () => true,
          () => false,
        ),
      ).toBe(false);
      const listed = JSON.parse((await offrun("ls", "--json")).stdout) as {
        agents: { name: string; mergedAt?: string }[];
      };
      expect(listed.agents.find((a) => a.name === "big")?.mergedAt).toBeUndefined();

      // Room again: the same merge goes through.
      await Promise.all(
        (await fs.readdir(disk)).filter((f) => f.startsWith("filler")).map((f) => fs.rm(path.join(disk, f))),
      );
      expect(await offrun("merge", "big")).toSucceed();
      expect(await fs.readFile(path.join(repo, "data.txt"), "utf8")).toContain("row of generated data");
      expect(await git(repo, box.env, ["status", "--porcelain", "--untracked-files=no"])).toBe("");
      await offrun("companion", "stop");
    },
    120_000,
  );
});
