import fs from "node:fs/promises";
import path from "node:path";
import { isAlive } from "../../src/core/foundation/pids.js";
import { eventually, makeRepo, makeSandbox, runOffrun, type Sandbox } from "../helpers/offrun.js";
import { fixture, writeStubCli } from "../helpers/stub-cli.js";

// No agent CLI without an owner: the companion killed with SIGKILL in the middle of a turn takes
// the agent's CLI with it, its children too, within 5 seconds, whether or not a new companion
// starts. Broke: the CLI (PPID 1 from then on) went on writing into the worktree, unrecorded, for
// as long as no companion started to recover it.

let box: Sandbox;
beforeAll(async () => {
  box = await makeSandbox("offrun-lifeline-");
});
afterAll(async () => {
  await box.cleanup();
});

interface Shown {
  agent: { status: string; pid?: number; worktree: string };
  events: { type: string; outcome?: string }[];
}

/** Whether any process of this group still runs (a zombie leader waiting to be reaped counts as gone). */
function groupRuns(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch {
    return false;
  }
  return isAlive(pgid);
}

test("kill -9 of the companion mid-turn ends the CLI and its children within 5 s; the turn resumes later", async () => {
  const repo = await makeRepo(path.join(box.dir, "app"), box.env);
  const slow = path.join(box.dir, "slow");
  const child = path.join(box.dir, "child.pid");
  // The CLI starts a child of its own (a dev server, a build) and writes into the worktree every
  // tenth of a second for as long as it lives, as a CLI at work does.
  const bin = await writeStubCli(path.join(box.dir, "stub", "claude"), {
    replay: fixture("claude", "2.1.332", "text-reply"),
    before: [
      `if [ -f '${slow}' ]; then`,
      `  sleep 300 & echo $! > '${child}'`,
      "  while :; do date +%s%N >> unseen.txt; sleep 0.1; done",
      "fi",
    ],
  });
  await fs.writeFile(slow, "");
  const env = { ...box.env, OFFRUN_CLAUDE_BIN: bin };
  const offrun = (...args: string[]) => runOffrun(args, { env, cwd: repo });
  const show = async () => JSON.parse((await offrun("show", "--json", "busy")).stdout) as Shown;

  expect(await offrun("start", "--name", "busy", "a long task")).toSucceed();
  const { pid, worktree } = await eventually(
    async () => {
      const { agent } = await show();
      return agent.status === "working" && agent.pid !== undefined ? agent : undefined;
    },
    20_000,
    "the turn to run",
  );
  const written = path.join(worktree, "unseen.txt");
  const childPid = Number(
    await eventually(() => fs.readFile(child, "utf8").catch(() => undefined), 10_000, "the child"),
  );
  await eventually(() => fs.stat(written).catch(() => undefined), 10_000, "the CLI to write");

  const companion = Number((await fs.readFile(path.join(box.offrunHome, "run", "companion.pid"), "utf8")).trim());
  const killedAt = Date.now();
  process.kill(companion, "SIGKILL");
  await eventually(
    async () => (groupRuns(pid!) || isAlive(childPid) ? undefined : true),
    5_000,
    "the CLI's group to end",
  );
  expect(Date.now() - killedAt).toBeLessThan(5_000);
  // Nothing writes into the worktree any more, and no companion has started meanwhile.
  const size = (await fs.stat(written)).size;
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect((await fs.stat(written)).size).toBe(size);
  expect(isAlive(companion)).toBe(false);

  // The next companion closes the turn as interrupted, and a message resumes it.
  await fs.rm(slow);
  expect(await offrun("send", "--wait", "busy", "go on")).toSucceed();
  const after = await show();
  expect(after.events.filter((e) => e.type === "turn_end").map((e) => e.outcome)).toEqual(["interrupted", "completed"]);
  expect(await offrun("companion", "stop")).toSucceed();
}, 90_000);
