import path from "node:path";
import { claudeWorld, type World } from "../helpers/e2e.js";

// A full disk at a review's scratch checkout and at a merge (the crash matrix's ENOSPC at
// `scratch` and `merge`): each says the disk is full and what to do, not a bare "ENOSPC".

let world: World;
beforeAll(async () => {
  world = await claudeWorld("offrun-rmfull-", { "README.md": "# demo\n" });
});
afterAll(async () => {
  await world.offrun(["companion", "stop"]);
  await world.close();
});

test("a review and a merge that meet a full disk say so, with what to do", async () => {
  // Broke: "The review could not run: ENOSPC: …" and "offrun: ENOSPC: …", never that the disk was full.
  const worktree = path.join(world.repo, ".worktrees", "full");
  world.server.script({ kind: "write_file", path: path.join(worktree, "a.txt"), content: "a\n" });
  expect(await world.offrun(["start", "--wait", "--name", "full", "write a.txt"])).toSucceed();
  expect(await world.offrun(["companion", "stop"])).toSucceed();
  const fault = { OFFRUN_FAULT: "scratch:ENOSPC,merge:ENOSPC" };
  expect(await world.offrun(["companion", "start"], { env: fault })).toSucceed();

  const review = await world.offrun(["review", "full", "--harness", "claude", "--wait", "--json"]);
  expect(review.exitCode).not.toBe(0);
  const { reason } = (JSON.parse(review.stdout) as { review: { reason: string } }).review;
  expect(reason).toMatch(
    /^The review could not run: The disk holding .+ is full \(\d+ KB free\): free space, then review again\.$/,
  );

  const merge = await world.offrun(["merge", "full"]);
  expect(merge.exitCode).not.toBe(0);
  // The fault is after git's merge: the merge is made, and what could not be written is said so.
  expect(merge.stderr).toMatch(
    /Merged offrun\/full into main \([0-9a-f]+\), but full's record and chat could not say so: the disk holding .+ is full \(\d+ KB free\)\. Run `offrun merge full` again to record it\./,
  );
});
