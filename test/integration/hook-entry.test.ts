import fs from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { makeSandbox, OFFRUN_BIN, runOffrun, type Sandbox } from "../helpers/offrun.js";

// Runs the built CLI (`npm run build:cli` first, as `npm test` does). No companion is started.
let sandbox: Sandbox;

beforeEach(async () => {
  sandbox = await makeSandbox("offrun-hook-");
});
afterEach(async () => {
  await sandbox.cleanup();
});

async function inboxLines(): Promise<{ harness: string; receivedAt: string; payload: unknown }[]> {
  const text = await fs.readFile(path.join(sandbox.offrunHome, "inbox", "hooks.jsonl"), "utf8");
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as { harness: string; receivedAt: string; payload: unknown });
}

it("`offrun hook claude` appends the stdin payload to the inbox, prints nothing and exits 0", async () => {
  const payload = { session_id: "s1", hook_event_name: "Stop", cwd: "/tmp/x", last_assistant_message: "done" };
  const result = await execa(process.execPath, [OFFRUN_BIN, "hook", "claude"], {
    env: sandbox.env,
    extendEnv: false,
    input: JSON.stringify(payload),
    reject: false,
    timeout: 10_000,
  });
  expect(result).toSucceed();
  expect(result.stdout).toBe("");
  const lines = await inboxLines();
  expect(lines).toEqual([{ harness: "claude", receivedAt: expect.any(String), payload }]);
  expect(Number.isNaN(Date.parse(lines[0]!.receivedAt))).toBe(false);
  const stat = await fs.stat(path.join(sandbox.offrunHome, "inbox", "hooks.jsonl"));
  expect(stat.mode & 0o777).toBe(0o600);
});

it("`offrun hook codex '<json>'` takes the payload from its last argument", async () => {
  const payload = { type: "agent-turn-complete", "thread-id": "t1", "turn-id": "u1", cwd: "/w" };
  const result = await runOffrun(["hook", "codex", JSON.stringify(payload)], { env: sandbox.env, timeoutMs: 10_000 });
  expect(result).toMatchObject({ exitCode: 0, stdout: "" });
  expect(await inboxLines()).toEqual([{ harness: "codex", receivedAt: expect.any(String), payload }]);
});

it("returns within the stdin cap when the CLI keeps stdin open, and exits 0 even when the inbox cannot be written", async () => {
  await fs.writeFile(path.join(sandbox.offrunHome, "inbox"), "a file where the folder should be");
  const started = Date.now();
  const child = execa(process.execPath, [OFFRUN_BIN, "hook", "claude"], {
    env: sandbox.env,
    extendEnv: false,
    stdin: "pipe", // never ended
    reject: false,
    timeout: 10_000,
  });
  const result = await child;
  expect(Date.now() - started).toBeLessThan(6_000);
  expect(result).toMatchObject({ exitCode: 0, stdout: "", stderr: "" });
});

it("`offrun hooks install` then `uninstall` through the CLI leaves settings.json byte-identical", async () => {
  const claudeHome = path.join(sandbox.home, ".claude");
  await fs.mkdir(claudeHome);
  const original = '{\n   "model": "opus"\n}';
  await fs.writeFile(path.join(claudeHome, "settings.json"), original);
  // Claude Code installed (a stand-in binary): hooks go only into the settings of a CLI that is there.
  const claude = path.join(sandbox.dir, "claude");
  await fs.writeFile(claude, "#!/bin/sh\nexit 0\n", { mode: 0o755 });
  const env = { ...sandbox.env, OFFRUN_CLAUDE_BIN: claude };
  const install = await runOffrun(["hooks", "install", "--harness", "claude"], { env });
  expect(install.stderr).toBe("");
  expect(install).toSucceed();
  const settings = await fs.readFile(path.join(claudeHome, "settings.json"), "utf8");
  expect(settings).toContain(`${OFFRUN_BIN} hook claude`);
  const status = await runOffrun(["hooks", "status", "--harness", "claude", "--json"], { env: sandbox.env });
  expect(JSON.parse(status.stdout)).toEqual([expect.objectContaining({ account: "default", present: true })]);
  const uninstall = await runOffrun(["hooks", "uninstall", "--harness", "claude"], { env: sandbox.env });
  expect(uninstall).toSucceed();
  expect(uninstall.stdout).toContain("removed (the settings are as they were before)");
  await expect(fs.readFile(path.join(claudeHome, "settings.json"), "utf8")).resolves.toBe(original);
  const again = await runOffrun(["hooks", "uninstall", "--harness", "claude"], { env: sandbox.env });
  expect(again.stdout).toContain("not installed: nothing to remove");
  expect(again.stdout).not.toContain("not_installed");
});

it("`offrun hooks install` writes no settings for a CLI that is not installed, and says so", async () => {
  const install = await runOffrun(["hooks", "install", "--harness", "gemini"], { env: sandbox.env });
  expect(install).toSucceed();
  expect(install.stdout).toContain("gemini default: skipped: Gemini CLI is not installed");
  await expect(fs.access(path.join(sandbox.home, ".gemini"))).rejects.toThrow();
});
