import fs from "node:fs/promises";
import path from "node:path";
import { git } from "../helpers/offrun.js";
import { opencodeWorld, type OpencodeWorld } from "../helpers/opencode-env.js";

// OpenCode 1.18.33's Planner keeps every write denied (its apply_patch cannot be held to one
// folder), so its memory briefing must not promise a write, and a write it tries changes nothing.

let world: OpencodeWorld;

beforeAll(async () => {
  world = await opencodeWorld("offrun-mem-opencode-", { "README.md": "# demo\n", "billing.ts": "export {};\n" });
});
afterAll(() => world.close());

type Shown = { events: { type: string; tool?: string }[] };

test("an OpenCode Planner is told it cannot write its memory, and a write it tries changes neither memory nor worktree", async () => {
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
    "opencode",
    "--mode",
    "plan",
    "--wait",
    "--name",
    "planner",
    "plan",
  ]);
  expect({ exitCode: started.exitCode, out: started.exitCode === 0 ? "" : started.stdout + started.stderr }).toEqual({
    exitCode: 0,
    out: "",
  });

  const briefing = JSON.stringify(world.server.turnRequests()[first]?.body);
  expect(briefing).toContain("You cannot write files in this mode");
  expect(briefing).not.toContain("You may write exactly these two files");
  expect(await fs.readFile(path.join(memory, "plan.md"), "utf8")).toBe(
    "# Plan\n\nWhat this agent is doing, what is done and what comes next.\n",
  );
  expect(await git(worktree, world.box.env, ["status", "--porcelain", "--untracked-files=all"])).toBe("");
  const shown = JSON.parse((await world.offrun(["show", "planner", "--json"])).stdout) as Shown;
  expect(shown.events.filter((e) => e.type === "denial").map((e) => e.tool)).toEqual(["write", "write"]);
  expect(shown.events.filter((e) => e.type === "memory_change")).toEqual([]);
});
