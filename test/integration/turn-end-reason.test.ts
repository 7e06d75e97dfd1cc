import fs from "node:fs/promises";
import path from "node:path";
import { eventually, makeRepo, makeSandbox, runOffrun, type Sandbox } from "../helpers/offrun.js";
import { fixture, writeStubCli } from "../helpers/stub-cli.js";

// A turn says who ended it: the user's stop, or the companion going away (and then it is resumable).

let box: Sandbox;
beforeAll(async () => {
  box = await makeSandbox("offrun-why-");
});
afterAll(async () => {
  await box.cleanup();
});

interface Shown {
  agent: { status: string; lastError?: string };
  events: { type: string; text?: string; outcome?: string; reason?: string; turn?: number }[];
}

async function setup(name: string) {
  const repo = await makeRepo(path.join(box.dir, name), box.env);
  const slow = path.join(box.dir, `${name}-slow`);
  const bin = await writeStubCli(path.join(box.dir, `${name}-stub`, "claude"), {
    replay: fixture("claude", "2.1.332", "text-reply"),
    // Slow only while the flag file is there: the first turn runs until it is stopped.
    before: [`if [ -f '${slow}' ]; then sleep 30; fi`],
  });
  await fs.writeFile(slow, "");
  const env = { ...box.env, OFFRUN_HOME: path.join(box.dir, `${name}-oh`), OFFRUN_CLAUDE_BIN: bin };
  const offrun = (...args: string[]) => runOffrun(args, { env, cwd: repo });
  const show = async () => JSON.parse((await offrun("show", "--json", name)).stdout) as Shown;
  const working = () =>
    eventually(async () => ((await show()).agent.status === "working" ? true : undefined), 20_000, "the turn to run");
  return { offrun, show, working, slow, bin };
}

test("a turn ended by `offrun companion stop` says the companion stopped, and the next message resumes it", async () => {
  // Broke: every abort read "Stopped by the user.", a companion stop too.
  const { offrun, show, working, slow, bin } = await setup("gone");
  expect(await offrun("start", "--name", "gone", "a long task")).toSucceed();
  await working();
  expect(await offrun("companion", "stop")).toSucceed();
  const end = (await show()).events.filter((e) => e.type === "turn_end").at(-1);
  expect(end?.outcome).toBe("interrupted");
  expect(end?.reason).toBe(
    "The companion was stopped (`offrun companion stop`) during this turn. Send a message to continue the same session.",
  );
  expect(end?.reason).not.toContain("by the user");

  await fs.rm(slow);
  expect(await offrun("send", "--wait", "gone", "go on")).toSucceed();
  const after = await show();
  expect(after.events.filter((e) => e.type === "turn_end").map((e) => e.outcome)).toEqual(["interrupted", "completed"]);
  const argv = (await fs.readFile(`${bin}.argv`, "utf8")).trim().split("\n");
  expect(argv.at(-1)).toMatch(/--resume [0-9a-f-]{36}/);
}, 60_000);

test("a turn the user stops still says the user stopped it", async () => {
  const { offrun, show, working } = await setup("mine");
  expect(await offrun("start", "--name", "mine", "a long task")).toSucceed();
  await working();
  expect(await offrun("stop", "mine")).toSucceed();
  const end = (await show()).events.filter((e) => e.type === "turn_end").at(-1);
  expect(end).toMatchObject({ outcome: "cancelled", reason: "Stopped by the user." });
}, 60_000);
