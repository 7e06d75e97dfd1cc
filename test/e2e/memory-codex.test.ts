import fs from "node:fs/promises";
import path from "node:path";
import { codexWorld, type World } from "../helpers/e2e.js";
import { git } from "../helpers/offrun.js";

// A Codex Planner keeps its memory with the real CLI (0.171.0) against the fake server: its own
// memory folder is writable, the worktree stays read-only, on the first turn and on a resumed one.

let world: World;

beforeAll(async () => {
  world = await codexWorld("offrun-mem-codex-", { "README.md": "# demo\n", "billing.ts": "export {};\n" });
});
afterAll(() => world.close());

type Shown = { events: { type: string; file?: string; who?: string; diff?: string; message?: string }[] };

/** The outputs of the tool calls the CLI sent back to the model in a request. */
function toolOutputs(body: unknown): string[] {
  const input = (body as { input?: { type?: string; output?: unknown }[] }).input ?? [];
  return input.filter((i) => i.type?.endsWith("_call_output")).map((i) => JSON.stringify(i.output));
}

test("a Codex Planner writes its plan and dead ends, and its writes into the worktree are refused, also after a resume", async () => {
  // Codex 0.171.0's read-only sandbox kept --add-dir folders read-only too, so a Planner could not keep its plan.md.
  const root = await fs.realpath(world.repo);
  const memory = path.join(root, ".offrun", "memory", "planner");
  const worktree = path.join(root, ".worktrees", "planner");
  world.server.script(
    { kind: "write_file", path: path.join(memory, "plan.md"), content: "# Plan\n\n1. split billing.ts\n" },
    { kind: "write_file", path: path.join(worktree, "split.ts"), content: "export {};\n" },
    { kind: "shell", command: `echo x > ${path.join(worktree, "shell.txt")}` },
    { kind: "text", text: "Planned." },
  );
  const first = world.server.turnRequests().length;
  const started = await world.offrun([
    "start",
    "--harness",
    "codex",
    "--mode",
    "plan",
    "--wait",
    "--name",
    "planner",
    "plan the split",
  ]);
  expect(started).toSucceed();
  expect(await fs.readFile(path.join(memory, "plan.md"), "utf8")).toBe("# Plan\n\n1. split billing.ts\n");
  // The sandbox refused the patch into the worktree, and said so to the model.
  const outputs = world.server
    .turnRequests()
    .slice(first)
    .flatMap((r) => toolOutputs(r.body));
  expect(outputs.some((o) => o.includes("patch rejected"))).toBe(true);
  expect(await git(worktree, world.box.env, ["status", "--porcelain"])).toBe("");

  world.server.script(
    { kind: "write_file", path: path.join(memory, "dead-ends.md"), content: "# Dead ends\n\n- one file per class\n" },
    { kind: "write_file", path: path.join(worktree, "again.ts"), content: "export {};\n" },
    { kind: "text", text: "Noted." },
  );
  expect(await world.offrun(["send", "--wait", "planner", "go on"])).toSucceed();
  expect(await fs.readFile(path.join(memory, "dead-ends.md"), "utf8")).toBe("# Dead ends\n\n- one file per class\n");
  expect(await git(worktree, world.box.env, ["status", "--porcelain"])).toBe("");

  const shown = JSON.parse((await world.offrun(["show", "planner", "--json"])).stdout) as Shown;
  const changes = shown.events.filter((e) => e.type === "memory_change");
  expect(changes.map((c) => [c.file, c.who])).toEqual([
    [".offrun/memory/planner/plan.md", "own"],
    [".offrun/memory/planner/dead-ends.md", "own"],
  ]);
  expect(shown.events.filter((e) => e.type === "notice" && e.message?.includes("Planner turn"))).toEqual([]);
});
