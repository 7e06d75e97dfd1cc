import fs from "node:fs/promises";
import path from "node:path";
import { makeRepo, makeSandbox, runOffrun, type Sandbox } from "../helpers/offrun.js";
import { fixture, writeStubCli } from "../helpers/stub-cli.js";

// A CLI that prints one enormous line (a dumped file, a base64 blob) must not take the companion's
// memory with it: the line is cut, its head logged with its size, and the turn goes on.

let box: Sandbox;
beforeAll(async () => {
  box = await makeSandbox("offrun-big-");
});
afterAll(async () => {
  await box.cleanup();
});

test.each([
  ["plan", "one-way stream"],
  ["build", "live turn"],
])("a 12 MB stdout line in a %s turn (%s) becomes one unreadable_output error and the turn completes", async (mode) => {
  const repo = await makeRepo(path.join(box.dir, `repo-${mode}`), box.env);
  const bin = await writeStubCli(path.join(box.dir, `stub-${mode}`, "claude"), {
    replay: fixture("claude", "2.1.332", "text-reply"),
    before: ["head -c 12000000 /dev/zero | tr '\\0' 'x'", "echo"],
  });
  const env = { ...box.env, OFFRUN_HOME: path.join(box.dir, `oh-${mode}`), OFFRUN_CLAUDE_BIN: bin };
  const result = await runOffrun(["start", "--wait", "--mode", mode, "--name", "big", "print a lot"], {
    env,
    cwd: repo,
  });
  expect(result).toSucceed();

  const chat = (await fs.readFile(path.join(repo, ".offrun", "chats", "big.jsonl"), "utf8")).trim().split("\n");
  const events = chat.map(
    (line) => JSON.parse(line) as { type: string; kind?: string; message?: string; outcome?: string },
  );
  const errors = events.filter((e) => e.type === "error");
  expect(errors).toHaveLength(1);
  expect(errors[0]).toMatchObject({ kind: "unreadable_output" });
  expect(errors[0]!.message).toContain("12000000 characters");
  expect(errors[0]!.message!.length).toBeLessThan(70_000);
  expect(events.at(-1)).toMatchObject({ type: "turn_end", outcome: "completed" });
  expect(JSON.parse((await runOffrun(["ls", "--json"], { env, cwd: repo })).stdout).agents).toHaveLength(1);
});
