import fs from "node:fs/promises";
import path from "node:path";
import { geminiProtocol } from "../fake-server/gemini.js";
import { startFakeServer, type FakeServer } from "../fake-server/server.js";
import { GEMINI_BIN, geminiTestEnv, prepareGeminiHome } from "../helpers/gemini-env.js";
import { git, makeRepo, makeSandbox, runOffrun, type Sandbox } from "../helpers/offrun.js";

// The real Gemini CLI (0.61.0) against the fake Gemini API, driven through the real `offrun` CLI.

let server: FakeServer;
let box: Sandbox;
let repo: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  server = await startFakeServer([geminiProtocol]);
  box = await makeSandbox("offrun-e2e-gemini-");
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
});

afterAll(async () => {
  await runOffrun(["companion", "stop"], { env }).catch(() => undefined);
  await box.cleanup();
  await server.close();
});

const offrun = (...args: string[]) => runOffrun(args, { env, cwd: repo });

interface Shown {
  events: { type: string; outcome?: string; kind?: string; resetsAt?: string; window?: string; tool?: string }[];
}

async function shown(agent: string): Promise<Shown> {
  return JSON.parse((await offrun("show", agent, "--json")).stdout) as Shown;
}

// Gemini CLI keeps its own folder trust unless the user trusted the repository in Offrun.
test("in a repository not trusted yet, Gemini CLI keeps its folder trust, and the turn says how to trust", async () => {
  const started = await offrun("start", "--harness", "gemini", "--wait", "--name", "untrusted", "say hello");
  expect(started.exitCode).not.toBe(0);
  expect(started.stdout).toContain(
    "does not run in a folder it does not trust. Trust this repository with `offrun trust`",
  );
  expect(await offrun("trust", "--yes")).toSucceed();
});

test("a Build turn writes a file in the worktree only, and merge brings it to the main checkout", async () => {
  const worktree = path.join(repo, ".worktrees", "notes");
  server.script({ kind: "write_file", path: path.join(worktree, "notes.md"), content: "gemini was here\n" });
  const started = await offrun("start", "--harness", "gemini", "--wait", "--name", "notes", "write notes.md");
  expect(started.stderr).toBe("");
  expect(started).toSucceed();
  expect(await fs.readFile(path.join(worktree, "notes.md"), "utf8")).toBe("gemini was here\n");
  await expect(fs.access(path.join(repo, "notes.md"))).rejects.toThrow();

  expect(await offrun("merge", "notes")).toSucceed();
  expect(await fs.readFile(path.join(repo, "notes.md"), "utf8")).toBe("gemini was here\n");
  const subject = (await git(repo, box.env, ["log", "-1", "--format=%s", "offrun/notes"])).trim();
  expect(subject).toBe("offrun: notes: write notes.md");
});

// Before the tests that use up the login's quota: Gemini CLI inside the sandbox reaches the model (its only allowed host) through the
// sandbox's proxy and writes in its worktree. Headless Gemini refuses shell tools by itself, so the
// refusals are tested on Claude Code and Codex (sandbox.test.ts).
test("a sandboxed Build turn reaches the model through the sandbox and writes in its worktree", async () => {
  const worktree = path.join(repo, ".worktrees", "boxed");
  server.script({ kind: "write_file", path: path.join(worktree, "boxed.md"), content: "inside the sandbox\n" });
  const started = await offrun(
    "start",
    "--harness",
    "gemini",
    "--sandbox",
    "--wait",
    "--name",
    "boxed",
    "write boxed.md",
  );
  expect(started).toSucceed();
  expect(started.stdout).toContain("sandboxed");
  expect(await fs.readFile(path.join(worktree, "boxed.md"), "utf8")).toBe("inside the sandbox\n");
});

test("send resumes the Gemini session, and the model receives the whole history", async () => {
  server.script({ kind: "text", text: "Split it by invoice and payment." });
  const first = await offrun(
    "start",
    "--harness",
    "gemini",
    "--wait",
    "--name",
    "split",
    "how would you split billing.ts?",
  );
  expect(first).toSucceed();
  expect(first.stdout).toContain("Split it by invoice and payment.");

  const before = server.turnRequests().length;
  server.script({ kind: "text", text: "Payments first." });
  const second = await offrun("send", "--wait", "split", "which part first?");
  expect(second).toSucceed();
  expect(second.stdout).toContain("Payments first.");
  const body = JSON.stringify(server.turnRequests().slice(before).at(-1)!.body);
  expect(body).toContain("how would you split billing.ts?");
  expect(body).toContain("Split it by invoice and payment.");
  expect(body).toContain("which part first?");
  const ends = (await shown("split")).events.filter((e) => e.type === "turn_end").map((e) => e.outcome);
  expect(ends).toEqual(["completed", "completed"]);
});

test("a Planner turn writes nothing, even when the model tries, and the refusal is a denial", async () => {
  const worktree = path.join(repo, ".worktrees", "readonly");
  server.script(
    { kind: "write_file", path: path.join(worktree, "nope.md"), content: "should not exist\n" },
    { kind: "text", text: "I can only plan." },
  );
  const result = await offrun("start", "--harness", "gemini", "--mode", "plan", "--wait", "--name", "readonly", "plan");
  expect(result).toSucceed();
  await expect(fs.access(path.join(worktree, "nope.md"))).rejects.toThrow();
  expect(await git(worktree, box.env, ["status", "--porcelain"])).toBe("");
  expect((await shown("readonly")).events.filter((e) => e.type === "denial").map((e) => e.tool)).toEqual([
    "write_file",
  ]);
});

test("a 429 ends the turn failed as rate limited instead of retrying for minutes", async () => {
  server.script({ kind: "rate_limit", retryAfterSeconds: 1 });
  const result = await offrun("start", "--harness", "gemini", "--wait", "--name", "busy", "hit a rate limit");
  expect(result.exitCode).toBe(1);
  const events = (await shown("busy")).events;
  expect(events.filter((e) => e.type === "error").map((e) => e.kind)).toContain("rate_limited");
  expect(events.find((e) => e.type === "turn_end")).toMatchObject({ outcome: "failed" });
});

// Last: afterwards the login counts as limited until its reset, and Offrun starts no more turns on it.
test("the daily quota ends the turn limited, with the reset time recorded", async () => {
  server.script({ kind: "usage_limit", resetsAt: Math.floor(Date.now() / 1000) + 3600 });
  const result = await offrun("start", "--harness", "gemini", "--wait", "--name", "quota", "hit the quota");
  expect(result.exitCode).not.toBe(0);
  const events = (await shown("quota")).events;
  const hit = events.find((e) => e.type === "limit_hit");
  expect(hit).toMatchObject({ window: "daily" });
  // Midnight in Los Angeles, within the next day.
  const resetsIn = Date.parse(hit!.resetsAt!) - Date.now();
  expect(resetsIn).toBeGreaterThan(0);
  expect(resetsIn).toBeLessThanOrEqual(25 * 3600 * 1000);
  expect(events.find((e) => e.type === "turn_end")).toMatchObject({ outcome: "limited" });
});
