import fs from "node:fs/promises";
import path from "node:path";
import type { Step } from "../fake-server/script.js";
import { runCommand } from "../../src/core/foundation/process.js";
import { opencodeHarness } from "../../src/harnesses/opencode/index.js";
import { git } from "../helpers/offrun.js";
import {
  OPENCODE_BIN,
  OPENCODE_REQUESTS_PER_429,
  opencodeDirs,
  opencodeWorld,
  type OpencodeWorld,
} from "../helpers/opencode-env.js";

// The real OpenCode CLI (1.18.33) against the fake Chat Completions server, driven through the real `offrun` CLI.

let world: OpencodeWorld;

beforeAll(async () => {
  world = await opencodeWorld("offrun-e2e-oc-", {
    "README.md": "# demo\n",
    "billing.ts": "export {};\n",
    // Offrun's own retry of a rate-limited turn would only repeat what the test already shows.
    ".offrun/config.json": JSON.stringify({ retry: { attempts: 0 } }),
  });
});

afterAll(async () => {
  await world.close();
});

const offrun = (...args: string[]) => world.offrun(args);
const worktreeOf = (name: string) => path.join(world.repo, ".worktrees", name);

/** The user messages of a Chat Completions request body. */
function userTexts(body: unknown): string[] {
  const messages = (body as { messages?: { role: string; content: unknown }[] }).messages ?? [];
  return messages.filter((m) => m.role === "user").map((m) => JSON.stringify(m.content));
}

test("a Build turn writes a file in the worktree only, and merge brings it to the main checkout", async () => {
  const worktree = worktreeOf("notes");
  world.server.script({ kind: "write_file", path: path.join(worktree, "notes.md"), content: "opencode was here" });
  const before = world.server.turnRequests().length;
  const started = await offrun("start", "--harness", "opencode", "--wait", "--name", "notes", "write notes.md");
  expect(started.stderr).toBe("");
  expect(started).toSucceed();
  expect(await fs.readFile(path.join(worktree, "notes.md"), "utf8")).toBe("opencode was here");
  await expect(fs.access(path.join(world.repo, "notes.md"))).rejects.toThrow();
  // The prompt went on stdin: an argument with a space would have reached the model in quotes.
  // (A first turn opens with the project memory; the user's own words close the one message.)
  const [message, ...more] = userTexts(world.server.turnRequests()[before]!.body);
  expect(more).toEqual([]);
  expect(JSON.parse(message!)).toMatch(/^## Project memory\n[\s\S]*\n## Your message\n\nwrite notes\.md$/);

  expect(await offrun("merge", "notes")).toSucceed();
  expect(await fs.readFile(path.join(world.repo, "notes.md"), "utf8")).toBe("opencode was here");
});

test("send resumes the OpenCode session with the whole history", async () => {
  world.server.script({ kind: "text", text: "Split it by invoice and payment." });
  const first = await offrun(
    "start",
    "--harness",
    "opencode",
    "--mode",
    "plan",
    "--wait",
    "--name",
    "split",
    "how to split?",
  );
  expect(first).toSucceed();
  expect(first.stdout).toContain("Split it by invoice and payment.");

  const before = world.server.turnRequests().length;
  world.server.script({ kind: "text", text: "Payments first." });
  const second = await offrun("send", "--wait", "split", "which part first?");
  expect(second).toSucceed();
  const body = JSON.stringify(world.server.turnRequests().slice(before).at(-1)!.body);
  expect(body).toContain("how to split?");
  expect(body).toContain("Split it by invoice and payment.");
  expect(body).toContain("which part first?");
});

test("copySession moves a session into another login's home, where OpenCode finds it", async () => {
  const record = JSON.parse(await fs.readFile(path.join(world.repo, ".offrun", "agents", "split.json"), "utf8")) as {
    sessionId: string;
  };
  const toHome = path.join(world.box.dir, "other-login");
  process.env.OFFRUN_OPENCODE_BIN = OPENCODE_BIN; // copySession locates the binary in Offrun's own environment
  await opencodeHarness.copySession({
    fromHome: opencodeDirs(world.box.home).dataHome,
    toHome,
    sessionId: record.sessionId,
    cwd: worktreeOf("split"),
  });
  const exported = await runCommand({
    file: OPENCODE_BIN,
    args: ["export", record.sessionId],
    env: { ...world.env, XDG_DATA_HOME: toHome },
  });
  expect(exported).toSucceed();
  expect(exported.stdout).toContain("which part first?");
  await expect(
    opencodeHarness.copySession({ fromHome: toHome, toHome, sessionId: "ses_missing", cwd: world.repo }),
  ).rejects.toMatchObject({ kind: "not_found" });
});

test("a Planner turn cannot write, through the write tool or the shell", async () => {
  const worktree = worktreeOf("readonly");
  world.server.script(
    { kind: "write_file", path: path.join(worktree, "nope.md"), content: "should not exist" },
    { kind: "shell", command: "echo hacked > hacked.txt" },
    { kind: "text", text: "I only plan." },
  );
  const before = world.server.turnRequests().length;
  const result = await offrun(
    "start",
    "--harness",
    "opencode",
    "--mode",
    "plan",
    "--wait",
    "--name",
    "readonly",
    "plan",
  );
  expect(result).toSucceed();
  expect(await git(worktree, world.box.env, ["status", "--porcelain", "--untracked-files=all"])).toBe("");
  // Denied tools are not even offered to the model.
  const tools = JSON.stringify((world.server.turnRequests()[before]!.body as { tools?: unknown }).tools);
  expect(tools).not.toMatch(/"name":"(write|edit|bash|task)"/);
  const shown = await offrun("show", "readonly");
  expect(shown.stdout).toMatch(/denied|denial|refused/i);
});

test("a 429 that outlasts OpenCode's own retries ends the turn with a clear failure", async () => {
  const steps: Step[] = Array.from({ length: OPENCODE_REQUESTS_PER_429 }, () => ({
    kind: "rate_limit",
    retryAfterSeconds: 0,
  }));
  world.server.script(...steps);
  const result = await offrun("start", "--harness", "opencode", "--wait", "--name", "limited", "hit the limit");
  expect(result.exitCode).toBe(1);
  expect(`${result.stdout}${result.stderr}`).toMatch(/rate limit/i);
});
