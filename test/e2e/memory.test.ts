import fs from "node:fs/promises";
import path from "node:path";
import { claudeWorld, type World } from "../helpers/e2e.js";

// Project memory with the real CLIs against the fake model server: what reaches the model,
// what the agent may write, the memory_change events its writes become, and reverting one.

let world: World;

beforeAll(async () => {
  world = await claudeWorld("offrun-mem-e2e-");
});
afterAll(() => world.close());

type Shown = { events: { type: string; id?: string; file?: string; who?: string; diff?: string; message?: string }[] };

test("Claude gets the memory on its first turn, may write its dead ends, and the write is an event that revert undoes", async () => {
  const root = await fs.realpath(world.repo);
  const memory = path.join(root, ".offrun", "memory");
  const deadEnds = path.join(memory, "recall", "dead-ends.md");
  await fs.mkdir(memory, { recursive: true });
  await fs.writeFile(path.join(memory, "conventions.md"), "# Conventions\n\n- Never use sleep in tests.\n");
  world.server.script(
    { kind: "write_file", path: deadEnds, content: "# Dead ends\n\n- sleep(100) in the test: still flaky\n" },
    { kind: "text", text: "Noted the dead end." },
  );
  const first = world.server.turnRequests().length;
  const started = await world.offrun(["start", "--wait", "--name", "recall", "fix the flaky upload test"]);
  expect(started).toSucceed();

  // The first request carries the memory files and the paths the agent may write.
  const request = JSON.stringify(world.server.turnRequests()[first]!.body);
  expect(request).toContain("- Never use sleep in tests.");
  expect(request).toContain(deadEnds);
  expect(request).toContain(path.join(memory, "recall", "plan.md"));
  expect(request).toContain("fix the flaky upload test");
  // --add-dir made the agent's memory folder (and only it) one of Claude's working directories.
  expect(request).toContain(`Additional working directories:\\n  - ${path.join(memory, "recall")}\\n`);
  expect(await fs.readFile(deadEnds, "utf8")).toBe("# Dead ends\n\n- sleep(100) in the test: still flaky\n");

  const shown = JSON.parse((await world.offrun(["show", "recall", "--json"])).stdout) as Shown;
  const change = shown.events.find((e) => e.type === "memory_change");
  expect(change).toMatchObject({ id: "m1.1", file: ".offrun/memory/recall/dead-ends.md", who: "own" });
  expect(change?.diff).toContain("+- sleep(100) in the test: still flaky");
  expect(change?.diff).toContain("-Approaches that were tried and did not work, and why.");
  expect((await world.offrun(["show", "recall"])).stdout).toContain(
    "✎ memory [m1.1] .offrun/memory/recall/dead-ends.md",
  );

  const log = await world.offrun(["memory", "log", "recall"]);
  expect(log.stdout).toContain("offrun memory revert recall m1.1");
  expect(log.stdout).toContain("+- sleep(100) in the test: still flaky");

  const reverted = await world.offrun(["memory", "revert", "recall", "m1.1"]);
  expect(reverted).toSucceed();
  expect(await fs.readFile(deadEnds, "utf8")).toBe(
    "# Dead ends\n\nApproaches that were tried and did not work, and why.\n",
  );

  // The same session goes on: no second briefing, and the user's revert is not the agent's change.
  const next = world.server.turnRequests().length;
  expect(await world.offrun(["send", "--wait", "recall", "go on"])).toSucceed();
  // The resumed history holds the first briefing; the new message adds none.
  const resumed = JSON.stringify(world.server.turnRequests()[next]!.body);
  expect(resumed.split("## Project memory")).toHaveLength(2);
  expect(resumed).toContain('{"role":"user","content":"go on"}');
  const after = JSON.parse((await world.offrun(["show", "recall", "--json"])).stdout) as Shown;
  expect(after.events.filter((e) => e.type === "memory_change")).toHaveLength(1);
});

test("a Claude Planner writes its own plan, while its write into the worktree in the same turn is refused and reported", async () => {
  // Claude Code 2.1.332's plan mode refused writes in --add-dir folders too, so a Planner could not keep its plan.md.
  const root = await fs.realpath(world.repo);
  const plan = path.join(root, ".offrun", "memory", "planner", "plan.md");
  const intruder = path.join(root, ".worktrees", "planner", "billing-split.ts");
  world.server.script(
    { kind: "write_file", path: plan, content: "# Plan\n\n1. split billing.ts\n" },
    { kind: "write_file", path: intruder, content: "export {};\n" },
    { kind: "text", text: "Planned." },
  );
  const first = world.server.turnRequests().length;
  const result = await world.offrun(["start", "--wait", "--mode", "plan", "--name", "planner", "plan the split"]);
  expect(result).toSucceed();
  expect(await fs.readFile(plan, "utf8")).toBe("# Plan\n\n1. split billing.ts\n");
  await expect(fs.access(intruder)).rejects.toThrow();
  // The model is told it is planning, since the CLI's plan mode (which would say so) is not used.
  expect(JSON.stringify(world.server.turnRequests()[first]!.body)).toContain("You are in Planner mode");

  const shown = JSON.parse((await world.offrun(["show", "planner", "--json"])).stdout) as Shown;
  const changes = shown.events.filter((e) => e.type === "memory_change");
  expect(changes).toEqual([expect.objectContaining({ file: ".offrun/memory/planner/plan.md", who: "own" })]);
  expect(changes[0]?.diff).toContain("+1. split billing.ts");
  const denials = shown.events.filter((e) => e.type === "denial") as { tool?: string; input?: unknown }[];
  expect(denials).toEqual([
    expect.objectContaining({ tool: "Write", input: expect.objectContaining({ file_path: intruder }) }),
  ]);
  expect(shown.events.filter((e) => e.type === "notice" && e.message?.includes("Planner turn"))).toEqual([]);
});

test("memory edit opens the files in $EDITOR as arguments, and fails clearly without one", async () => {
  const editor = path.join(world.box.dir, "bin", "my_editor");
  await fs.mkdir(path.dirname(editor), { recursive: true });
  await fs.writeFile(editor, '#!/bin/sh\nfor f in "$@"; do echo "- edited by hand" >> "$f"; done\n', { mode: 0o755 });
  const unset = await world.offrun(["memory", "edit", "recall"], { env: { EDITOR: "" } });
  expect(unset.exitCode).toBe(2);
  expect(unset.stderr).toContain("$EDITOR is not set");

  // $EDITOR is split on spaces (program, then its own arguments), never run through a shell.
  const edited = await world.offrun(["memory", "edit", "recall"], {
    env: { EDITOR: `sh ${editor.replace(" ", "_")}` },
  });
  expect(edited).toSucceed();
  const shown = await world.offrun(["memory", "show", "recall"]);
  expect(shown.stdout.match(/- edited by hand/g)).toHaveLength(3);
  // The user's edits are not credited to the agent's next turn.
  expect(await world.offrun(["send", "--wait", "recall", "one more"])).toSucceed();
  const events = (JSON.parse((await world.offrun(["show", "recall", "--json"])).stdout) as Shown).events;
  expect(events.filter((e) => e.type === "memory_change")).toHaveLength(1);
});
