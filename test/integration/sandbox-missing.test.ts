import fs from "node:fs/promises";
import path from "node:path";
import { CLAUDE_BIN } from "../helpers/claude-env.js";
import { makeRepo, makeSandbox, runOffrun, type Sandbox } from "../helpers/offrun.js";

// Where the sandbox cannot run, `start --sandbox` refuses and says what to install; it
// never runs the agent unsandboxed. A PATH with only node and git stands for a machine without
// bubblewrap, socat and ripgrep.

let box: Sandbox;
let repo: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  box = await makeSandbox("offrun-sbx-missing-");
  repo = await makeRepo(path.join(box.dir, "repo"), box.env);
  const bin = path.join(box.dir, "bin");
  await fs.mkdir(bin);
  for (const tool of ["node", "git"]) {
    const found = (process.env.PATH ?? "").split(path.delimiter).map((dir) => path.join(dir, tool));
    const real = (
      await Promise.all(
        found.map((file) =>
          fs.access(file).then(
            () => file,
            () => undefined,
          ),
        ),
      )
    ).find(Boolean);
    await fs.symlink(real!, path.join(bin, tool));
  }
  // A key makes the Default login usable (never "signed out"), so a start gets as far as the sandbox;
  // the dead base URL makes a turn outside it end at once.
  env = {
    ...box.env,
    PATH: bin,
    OFFRUN_CLAUDE_BIN: CLAUDE_BIN,
    ANTHROPIC_API_KEY: "test",
    ANTHROPIC_BASE_URL: "http://127.0.0.1:9",
  };
});
afterAll(async () => {
  await box.cleanup();
});

test("start --sandbox refuses with what to install, and starts nothing", async () => {
  const started = await runOffrun(["start", "--sandbox", "--name", "boxed", "do the task"], { env, cwd: repo });
  expect(started.exitCode).not.toBe(0);
  expect(started.stderr).toContain("The sandbox cannot run here");
  expect(started.stderr).toContain("bubblewrap (bwrap) not installed");
  expect(started.stderr).toContain("sudo apt install bubblewrap socat ripgrep");
  await expect(fs.access(path.join(repo, ".worktrees", "boxed"))).rejects.toThrow();
  const listed = JSON.parse((await runOffrun(["ls", "--json"], { env, cwd: repo })).stdout) as { agents: unknown[] };
  expect(listed.agents).toEqual([]);
});

test("offrun harnesses says the CLIs cannot run sandboxed here, and why", async () => {
  const listed = await runOffrun(["harnesses", "--json"], { env, cwd: repo });
  expect(listed).toSucceed();
  const rows = JSON.parse(listed.stdout) as { id: string; sandbox: { available: boolean; problems: string[] } }[];
  const claude = rows.find((row) => row.id === "claude")!;
  expect(claude.sandbox.available).toBe(false);
  expect(claude.sandbox.problems.join("; ")).toContain("socat not installed");
});

test("a project with sandbox.enabled is refused the same way without --sandbox, and --no-sandbox runs it outside", async () => {
  const config = path.join(repo, ".offrun", "config.json");
  await fs.mkdir(path.dirname(config), { recursive: true });
  await fs.writeFile(config, JSON.stringify({ sandbox: { enabled: true } }));
  try {
    const refused = await runOffrun(["start", "--name", "by-config", "do the task"], { env, cwd: repo });
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stderr).toContain("The sandbox cannot run here");

    const outside = await runOffrun(["start", "--no-sandbox", "--json", "--name", "opted-out", "do the task"], {
      env,
      cwd: repo,
    });
    expect(outside).toSucceed();
    expect((JSON.parse(outside.stdout) as { sandbox?: boolean }).sandbox).toBeUndefined();
    await runOffrun(["stop", "opted-out"], { env, cwd: repo });
  } finally {
    await fs.rm(config, { force: true });
  }
});
