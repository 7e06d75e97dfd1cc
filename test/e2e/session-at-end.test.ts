import { randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import type { ParsedEvent } from "../../src/core/foundation/events.js";
import { claudeHarness } from "../../src/harnesses/claude/index.js";
import type { LiveTurnIO } from "../../src/harnesses/types.js";
import { anthropicProtocol } from "../fake-server/anthropic.js";
import { startFakeServer, type FakeServer } from "../fake-server/server.js";
import { CLAUDE_BIN, claudeTestEnv } from "../helpers/claude-env.js";
import { makeRepo, makeSandbox, type Sandbox } from "../helpers/offrun.js";
import { localRunner } from "../../src/core/foundation/runner.js";

// Claude Code's adapter says `sessionCompleteAtEnd`: a limited turn's failover copies the session
// as soon as the stream reports the end, without waiting for the CLI to exit. This checks the
// claim on the pinned CLI, through the adapter's own live turn: whatever the CLI writes to the
// session file after its result line is bookkeeping, never the conversation.

let box: Sandbox;
let server: FakeServer;
let repo: string;
let env: NodeJS.ProcessEnv;
const configDir = () => path.join(box.home, ".claude");

beforeAll(async () => {
  box = await makeSandbox("offrun-e2e-atend-");
  server = await startFakeServer([anthropicProtocol]);
  repo = await makeRepo(path.join(box.dir, "repo"), box.env, { "README.md": "# demo\n" });
  env = claudeTestEnv({
    serverUrl: server.url,
    home: box.home,
    tmp: box.tmp,
    configDir: configDir(),
    subscriber: true,
  });
  const now = Math.floor(Date.now() / 1000);
  server.setQuota({
    fiveHourUsedPercent: 50,
    fiveHourResetsAt: now + 7200,
    weeklyUsedPercent: 10,
    weeklyResetsAt: now + 72 * 3600,
  });
});

afterAll(async () => {
  await server.close();
  await box.cleanup();
});

async function sessionFile(sessionId: string): Promise<string | undefined> {
  const projects = path.join(configDir(), "projects");
  for (const folder of await fs.readdir(projects).catch(() => [])) {
    const file = path.join(projects, folder, `${sessionId}.jsonl`);
    if (await fs.stat(file).catch(() => undefined)) return file;
  }
  return undefined;
}

/** Runs one live turn of the adapter; returns the session file as it was at the turn's end, and after the exit. */
async function limitedTurn(): Promise<{ atEnd: string; afterExit: string; events: ParsedEvent[] }> {
  const sessionId = randomUUID();
  const events: ParsedEvent[] = [];
  let atEnd: Promise<string> | undefined;
  const controller = new AbortController();
  const io: LiveTurnIO = {
    signal: controller.signal,
    alwaysAllowed: [],
    emit(batch) {
      events.push(...batch);
      if (batch.some((e) => e.type === "turn_end")) {
        atEnd = sessionFile(sessionId).then((file) => (file ? fs.readFile(file, "utf8") : ""));
      }
    },
    decide: () => Promise.resolve({ kind: "allow" }),
    run: localRunner.run,
    spawn(command) {
      const child = localRunner.piped(command, {
        timeoutMs: 120_000,
        idleTimeoutMs: 60_000,
        signal: controller.signal,
      });
      return { stdin: child.stdin, stdout: child.stdout, exited: child.exited, kill: child.kill };
    },
  };
  await claudeHarness.live!.runTurn(
    { prompt: "list the files", mode: "build", cwd: repo, binary: CLAUDE_BIN, newSessionId: sessionId, env },
    io,
  );
  const file = await sessionFile(sessionId);
  if (!atEnd || !file) throw new Error("the turn ended without a session file");
  return { atEnd: await atEnd, afterExit: await fs.readFile(file, "utf8"), events };
}

const linesOf = (text: string) => text.split("\n").filter(Boolean);
const typeOf = (line: string) => (JSON.parse(line) as { type?: string }).type;

test.each([
  [
    "at the first request",
    () => server.script({ kind: "usage_limit", resetsAt: Math.floor(Date.now() / 1000) + 3 * 3600 }),
  ],
  [
    "after a tool call",
    () =>
      server.script(
        { kind: "shell", command: "ls" },
        { kind: "usage_limit", resetsAt: Math.floor(Date.now() / 1000) + 3 * 3600 },
      ),
  ],
])("a limit %s: the session file is complete at the result line", async (_when, script) => {
  script();
  const { atEnd, afterExit, events } = await limitedTurn();
  expect(events.find((e) => e.type === "turn_end")).toMatchObject({ outcome: "limited" });
  expect(afterExit.startsWith(atEnd)).toBe(true);
  const later = linesOf(afterExit.slice(atEnd.length)).map(typeOf);
  // 2.1.332 appends its bookkeeping on the way out (mostly one cost-state line; once in CI under
  // load some other line too): never a line of the conversation, which is what a failover copies.
  expect(later.filter((type) => type === "user" || type === "assistant")).toEqual([]);
  // The conversation itself (the user's message, and the tool call when one ran) was already there.
  expect(atEnd).toContain("list the files");
  expect(linesOf(atEnd).some((line) => typeOf(line) === "assistant")).toBe(true);
});
