import fs from "node:fs/promises";
import path from "node:path";
import { claudeWorld, type World } from "../helpers/e2e.js";
import { eventually } from "../helpers/offrun.js";

// A memory change is its writer's. Agent one's turn runs (the real Claude Code, its answer held by
// the fake model server) while agent two starts and finishes on a quicker turn. Before: one's turn
// reported "another agent's memory (two)" for the plan.md and dead-ends.md Offrun itself made for
// two, and the undo it printed (`offrun memory revert one m1.1`) deleted them. Now one's turn
// records nothing of two's, and two's files stay.

let world: World;
beforeAll(async () => {
  world = await claudeWorld("offrun-mem-owner-");
});
afterAll(() => world.close());

type Shown = { agent: { status: string }; events: { type: string; id?: string; file?: string; owner?: string }[] };
const show = async (name: string) => JSON.parse((await world.offrun(["show", name, "--json"])).stdout) as Shown;

test("a turn that ran while another agent started and finished records none of that agent's memory", async () => {
  let release!: () => void;
  const until = new Promise<void>((resolve) => (release = resolve));
  world.server.script({ kind: "held", until, step: { kind: "text", text: "One is done." } });
  const asked = world.server.turnRequests().length;
  expect(await world.offrun(["start", "--name", "one", "the slow task"])).toSucceed();
  // One's request has reached the server and is held: two's cannot take its place.
  await eventually(
    async () => (world.server.turnRequests().length > asked ? true : undefined),
    30_000,
    "one's request",
  );
  // Two is started, and answered, while one's answer is held.
  world.server.script({ kind: "text", text: "Two is done." });
  expect(await world.offrun(["start", "--wait", "--name", "two", "the quick task"])).toSucceed();
  const memory = path.join(world.repo, ".offrun", "memory", "two");
  const twoFiles = (await fs.readdir(memory)).sort();
  expect(twoFiles).toEqual(["dead-ends.md", "plan.md"]);

  release();
  await eventually(async () => ((await show("one")).agent.status === "idle" ? true : undefined), 60_000, "one's end");
  const changes = (await show("one")).events.filter((e) => e.type === "memory_change");
  expect(changes.filter((c) => c.owner === "two" || c.file?.includes("/two/"))).toEqual([]);
  const log = await world.offrun(["memory", "log", "one"]);
  expect(log.stdout).not.toContain("another agent's memory (two)");
  expect((await fs.readdir(memory)).sort()).toEqual(twoFiles);
}, 180_000);
