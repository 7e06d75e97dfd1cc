import fs from "node:fs/promises";
import path from "node:path";
import { Supervisor } from "../../src/core/agents/supervisor.js";
import type { Command } from "../../src/core/foundation/process.js";
import { wrappedRunner } from "../../src/core/foundation/runner.js";
import { makeRepo, makeSandbox, useSandboxInProcess, type Sandbox } from "../helpers/offrun.js";
import { CompanionStop } from "../../src/core/agents/turn-stop.js";
import { fixture, writeStubCli } from "../helpers/stub-cli.js";

// Every turn's CLI starts through the supervisor's runner, one-way (Planner) and live (Build)
// alike (Build turns run live, Planner turns one-way): the place where a sandbox will wrap it.
// /usr/bin/env stands in for the wrapper.

let box: Sandbox;
let repo: string;
let seen: string;
let supervisor: Supervisor;
const wrapped: Command[] = [];

beforeAll(async () => {
  box = await makeSandbox("offrun-runner-");
  // The supervisor runs in this process.
  useSandboxInProcess(box);
  repo = await makeRepo(path.join(box.dir, "repo"), box.env);
  const stub = path.join(box.dir, "stub", "claude");
  seen = `${stub}.wrapped`;
  await writeStubCli(stub, {
    replay: fixture("claude", "2.1.332", "text-reply"),
    before: [`echo "\${OFFRUN_WRAPPED:-no} $1" >> '${seen}'`],
  });
  const runner = wrappedRunner((command) => {
    wrapped.push(command);
    return { ...command, file: "/usr/bin/env", args: ["OFFRUN_WRAPPED=yes", command.file, ...command.args] };
  });
  supervisor = new Supervisor({ ...box.env, OFFRUN_CLAUDE_BIN: stub }, runner);
});

afterAll(async () => {
  await supervisor.shutdown(new CompanionStop("stop"));
  await box.cleanup();
});

test.each(["build", "plan"] as const)("%s mode: the CLI runs inside the runner's wrapper", async (mode) => {
  const before = wrapped.length;
  await supervisor.start({ project: repo, name: `via-${mode}`, prompt: "hello", mode, account: "default" });
  expect(await supervisor.wait(repo, `via-${mode}`)).toMatchObject({ outcome: "completed" });
  expect(wrapped.slice(before).map((c) => c.args[0])).toEqual(["-p"]);
  expect((await fs.readFile(seen, "utf8")).trim().split("\n").at(-1)).toBe("yes -p");
});
