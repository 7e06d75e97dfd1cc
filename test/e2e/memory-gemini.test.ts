import fs from "node:fs/promises";
import path from "node:path";
import { geminiProtocol } from "../fake-server/gemini.js";
import { startFakeServer, type FakeServer } from "../fake-server/server.js";
import { GEMINI_BIN, geminiTestEnv, prepareGeminiHome } from "../helpers/gemini-env.js";
import { git, makeRepo, makeSandbox, runOffrun, type Sandbox } from "../helpers/offrun.js";

// A Gemini CLI Planner keeps its memory with the real CLI (0.61.0) against the fake server: its own
// memory folder is writable, the worktree stays read-only, on the first turn and on a resumed one.

let server: FakeServer;
let box: Sandbox;
let repo: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  server = await startFakeServer([geminiProtocol]);
  box = await makeSandbox("offrun-mem-gemini-");
  repo = await makeRepo(path.join(box.dir, "repo"), box.env, { "README.md": "# demo\n", "billing.ts": "export {};\n" });
  const geminiHome = path.join(box.home, "gemini-home");
  await prepareGeminiHome({ geminiHome });
  env = {
    ...geminiTestEnv({ serverUrl: server.url, home: box.home, tmp: box.tmp, geminiHome }),
    OFFRUN_GEMINI_BIN: GEMINI_BIN,
    OFFRUN_HOME: box.offrunHome,
    GIT_CONFIG_GLOBAL: box.env.GIT_CONFIG_GLOBAL,
    GIT_CONFIG_NOSYSTEM: "1",
  };
  // Gemini CLI runs only in a folder it trusts: the user trusted this repository in Offrun.
  expect(await runOffrun(["trust", "--yes"], { env, cwd: repo })).toSucceed();
});

afterAll(async () => {
  await runOffrun(["companion", "stop"], { env }).catch(() => undefined);
  await box.cleanup();
  await server.close();
});

const offrun = (...args: string[]) => runOffrun(args, { env, cwd: repo });

type Shown = { events: { type: string; file?: string; who?: string; message?: string; tool?: string }[] };

test("a Gemini Planner writes its plan and dead ends, and its writes into the worktree are refused, also after a resume", async () => {
  // 0.61.0's plan mode let write_file reach only its own plans directory, so a Planner could not keep its plan.md.
  const root = await fs.realpath(repo);
  const memory = path.join(root, ".offrun", "memory", "planner");
  const worktree = path.join(root, ".worktrees", "planner");
  server.script(
    { kind: "write_file", path: path.join(memory, "plan.md"), content: "# Plan\n\n1. split billing.ts\n" },
    { kind: "write_file", path: path.join(worktree, "split.ts"), content: "export {};\n" },
    // A path that starts in the memory folder and climbs back into the worktree.
    { kind: "write_file", path: `${memory}/../../../.worktrees/planner/climb.ts`, content: "export {};\n" },
    { kind: "shell", command: `echo x > ${path.join(worktree, "shell.txt")}` },
    { kind: "text", text: "Planned." },
  );
  const first = server.turnRequests().length;
  const started = await offrun("start", "--harness", "gemini", "--mode", "plan", "--wait", "--name", "planner", "plan");
  expect(started).toSucceed();
  expect(JSON.stringify(server.turnRequests()[first]?.body)).toContain("You may write exactly these two files");
  expect(await fs.readFile(path.join(memory, "plan.md"), "utf8")).toBe("# Plan\n\n1. split billing.ts\n");
  expect(await git(worktree, box.env, ["status", "--porcelain", "--untracked-files=all"])).toBe("");

  server.script(
    { kind: "write_file", path: path.join(memory, "dead-ends.md"), content: "# Dead ends\n\n- one file per class\n" },
    { kind: "write_file", path: path.join(worktree, "again.ts"), content: "export {};\n" },
    { kind: "text", text: "Noted." },
  );
  expect(await offrun("send", "--wait", "planner", "go on")).toSucceed();
  expect(await fs.readFile(path.join(memory, "dead-ends.md"), "utf8")).toBe("# Dead ends\n\n- one file per class\n");
  expect(await git(worktree, box.env, ["status", "--porcelain", "--untracked-files=all"])).toBe("");

  const shown = JSON.parse((await offrun("show", "planner", "--json")).stdout) as Shown;
  const denied = shown.events.filter((e) => e.type === "denial").map((e) => e.tool);
  expect(denied).toEqual(["write_file", "write_file", "run_shell_command", "write_file"]);
  const changes = shown.events.filter((e) => e.type === "memory_change");
  expect(changes.map((c) => [c.file, c.who])).toEqual([
    [".offrun/memory/planner/plan.md", "own"],
    [".offrun/memory/planner/dead-ends.md", "own"],
  ]);
  expect(shown.events.filter((e) => e.type === "notice" && e.message?.includes("Planner turn"))).toEqual([]);
});
