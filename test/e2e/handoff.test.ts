import fs from "node:fs/promises";
import path from "node:path";
import { anthropicProtocol } from "../fake-server/anthropic.js";
import { responsesProtocol } from "../fake-server/openai-responses.js";
import { startFakeServer, type FakeServer } from "../fake-server/server.js";
import { claudeCodexEnv } from "../helpers/claude-codex-env.js";
import { makeRepo, makeSandbox, runOffrun, type Sandbox } from "../helpers/offrun.js";

// Moving an agent to another CLI in the same worktree, and retrying a transient 429.

let box: Sandbox;
let repo: string;
let env: NodeJS.ProcessEnv;
let claudeServer: FakeServer;
let codexServer: FakeServer;

beforeAll(async () => {
  box = await makeSandbox("offrun-handoff-");
  repo = await makeRepo(path.join(box.dir, "repo"), box.env);
  claudeServer = await startFakeServer([anthropicProtocol]);
  codexServer = await startFakeServer([responsesProtocol]);
  env = await claudeCodexEnv(box, claudeServer.url, codexServer.url);
  await fs.mkdir(path.join(repo, ".offrun"), { recursive: true });
  // Short pauses so the retry test does not wait for the default backoff.
  await fs.writeFile(
    path.join(repo, ".offrun", "config.json"),
    JSON.stringify({ retry: { attempts: 2, baseSeconds: 0.2, maxSeconds: 1 } }),
  );
});

afterAll(async () => {
  await box.cleanup();
  await Promise.all([claudeServer.close(), codexServer.close()]);
});

const offrun = (...args: string[]) => runOffrun(args, { env, cwd: repo });

test("handoff starts the other CLI in the same worktree with the task, the conversation and the diff", async () => {
  const worktree = path.join(repo, ".worktrees", "relay");
  claudeServer.script(
    { kind: "write_file", path: path.join(worktree, "first-half.txt"), content: "claude wrote this\n" },
    { kind: "text", text: "First half is done; the second half needs a parser." },
  );
  expect(await offrun("start", "--wait", "--name", "relay", "build the two halves")).toSucceed();

  codexServer.script({ kind: "write_file", path: path.join(worktree, "second-half.txt"), content: "codex wrote this" });
  const before = codexServer.turnRequests().length;
  const handed = await offrun("handoff", "relay", "--harness", "codex", "--wait", "now write the second half");
  expect(handed).toSucceed();

  const prompt = JSON.stringify(codexServer.turnRequests()[before]!.body);
  expect(prompt).toContain("build the two halves");
  expect(prompt).toContain("First half is done; the second half needs a parser.");
  expect(prompt).toContain("first-half.txt");
  expect(prompt).toContain("claude wrote this");
  expect(prompt).toContain("now write the second half");
  expect(await fs.readFile(path.join(worktree, "first-half.txt"), "utf8")).toBe("claude wrote this\n");
  expect(await fs.readFile(path.join(worktree, "second-half.txt"), "utf8")).toContain("codex wrote this");

  const shown = JSON.parse((await offrun("show", "relay", "--json")).stdout) as {
    agent: { harness: string; status: string };
    events: { type: string; fromHarness?: string; toHarness?: string }[];
  };
  expect(shown.agent).toMatchObject({ harness: "codex", status: "idle" });
  expect(shown.events.find((e) => e.type === "handoff")).toMatchObject({ fromHarness: "claude", toHarness: "codex" });
});

test("a transient 429 is not a usage limit: the turn is tried again after a pause and succeeds", async () => {
  claudeServer.script({ kind: "rate_limit" }, { kind: "text", text: "Made it on the second try." });
  const result = await offrun("start", "--wait", "--name", "bumpy", "try me");
  expect(result).toSucceed();
  expect(result.stdout).toContain("Made it on the second try.");
  expect(result.stdout).toMatch(/Rate limited \(not a usage limit\)\. Trying again in \d+ s \(1 of 2\)/);
  const rows = JSON.parse((await offrun("quota", "--json")).stdout) as {
    harness: string;
    label: string;
    limitedUntil?: string;
  }[];
  expect(rows.find((r) => r.harness === "claude" && r.label === "default")?.limitedUntil).toBeUndefined();
});
