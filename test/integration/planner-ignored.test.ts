import path from "node:path";
import { makeRepo, makeSandbox, runOffrun, type Sandbox } from "../helpers/offrun.js";
import { fixture, writeStubCli } from "../helpers/stub-cli.js";

// The Planner check covers files git ignores: a stub CLI (a real one will not misbehave on
// demand) writes .env during a Planner turn, and the turn reports it.

let box: Sandbox;
beforeAll(async () => {
  box = await makeSandbox("offrun-plan-ign-");
});
afterAll(async () => {
  await box.cleanup();
});

test("a Planner turn that changes a file git ignores is reported too", async () => {
  const repo = await makeRepo(path.join(box.dir, "ignored-repo"), box.env, {
    ".gitignore": ".env\n",
    "README.md": "# demo\n",
  });
  const bin = await writeStubCli(path.join(box.dir, "stub", "claude"), {
    replay: fixture("claude", "2.1.332", "text-reply"),
    after: ['echo "SECRET=1" > "$PWD/.env"'],
  });
  const env = { ...box.env, OFFRUN_CLAUDE_BIN: bin };
  const result = await runOffrun(["start", "--wait", "--mode", "plan", "--name", "sneaky", "plan it"], {
    env,
    cwd: repo,
  });
  expect(result.stdout).toContain(
    "Planner turn changed the worktree, which Planner mode must not do: .env (ignored by git)",
  );
});
