import fs from "node:fs/promises";
import path from "node:path";
import { git } from "../helpers/offrun.js";
import { piWorld, type PiWorld } from "../helpers/pi-env.js";

// Pi 0.73.1's Planner has only read, grep, find and ls (no path-scoped writes exist), so its
// memory briefing must not promise a write, and a write it tries anyway changes nothing.

let world: PiWorld;

beforeAll(async () => {
  world = await piWorld("offrun-mem-pi-", { "README.md": "# demo\n", "billing.ts": "export {};\n" });
});
afterAll(() => world.close());

type Shown = { events: { type: string; tool?: string }[] };

test("a Pi Planner is told it cannot write its memory, and a write it tries changes neither memory nor worktree", async () => {
  const root = await fs.realpath(world.repo);
  const memory = path.join(root, ".offrun", "memory", "planner");
  const worktree = path.join(root, ".worktrees", "planner");
  world.server.script(
    { kind: "write_file", path: path.join(memory, "plan.md"), content: "# Plan\n\n1. split billing.ts\n" },
    { kind: "write_file", path: path.join(worktree, "split.ts"), content: "export {};\n" },
    { kind: "text", text: "Planned." },
  );
  const first = world.server.turnRequests().length;
  const started = await world.offrun([
    "start",
    "--harness",
    "pi",
    "--mode",
    "plan",
    "--wait",
    "--name",
    "planner",
    "plan the split",
  ]);
  expect(started).toSucceed();

  const briefing = JSON.stringify(world.server.turnRequests()[first]?.body);
  expect(briefing).toContain("You cannot write files in this mode");
  expect(briefing).not.toContain("You may write exactly these two files");
  expect(await fs.readFile(path.join(memory, "plan.md"), "utf8")).toBe(
    "# Plan\n\nWhat this agent is doing, what is done and what comes next.\n",
  );
  expect(await git(worktree, world.box.env, ["status", "--porcelain"])).toBe("");
  const shown = JSON.parse((await world.offrun(["show", "planner", "--json"])).stdout) as Shown;
  expect(shown.events.filter((e) => e.type === "memory_change")).toEqual([]);
});

test("a Pi Build agent is still told it may write its memory", async () => {
  world.server.script({ kind: "text", text: "Built." });
  const first = world.server.turnRequests().length;
  const started = await world.offrun(["start", "--harness", "pi", "--wait", "--name", "builder", "build it"]);
  expect(started).toSucceed();
  const briefing = JSON.stringify(world.server.turnRequests()[first]?.body);
  expect(briefing).toContain("You may write exactly these two files");
});
