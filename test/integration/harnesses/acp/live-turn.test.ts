import { existsSync } from "node:fs";
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { runAcpTurn, type AcpAgentDefinition } from "../../../../src/harnesses/acp/index.js";
import type { TurnInput } from "../../../../src/harnesses/types.js";
import { chatCompletionsProtocol } from "../../../fake-server/chat-completions.js";
import { geminiProtocol } from "../../../fake-server/gemini.js";
import type { Protocol } from "../../../fake-server/server.js";
import { startFakeServer, type FakeServer } from "../../../fake-server/server.js";
import type { Decision } from "../../../../src/harnesses/types.js";
import {
  GEMINI_ACP_ARGS,
  GEMINI_BIN,
  geminiAcpEnv,
  OPENCODE_ACP_ARGS,
  OPENCODE_BIN,
  opencodeAcpEnv,
} from "../../../helpers/acp-env.js";
import { testIO, type TestIO } from "../../../helpers/acp-io.js";
import { ofType, turnEnd } from "../../../helpers/events.js";
import { makeRepo, PROJECT_ROOT } from "../../../helpers/offrun.js";

/**
 * The ACP harness's live turn against the real, pinned Gemini CLI (`gemini --acp`) and OpenCode
 * (`opencode acp`) talking to the fake model server. Set OFFRUN_RECORD_ACP_FIXTURES=1 to write
 * what each agent printed to test/fixtures/acp/<cli>/<version>/<scenario>.jsonl.
 */

const RECORD = process.env.OFFRUN_RECORD_ACP_FIXTURES === "1";

interface Agent {
  name: "gemini" | "opencode";
  version: string;
  protocol: Protocol;
  definition: AcpAgentDefinition;
  env(server: FakeServer, home: string, tmp: string): Promise<NodeJS.ProcessEnv>;
}

const common = { env: {}, installHint: "", initializeTimeoutMs: 60_000, authMethodIds: [] };
const AGENTS: Agent[] = [
  {
    name: "gemini",
    version: "0.61.0",
    protocol: geminiProtocol,
    definition: {
      ...common,
      id: "gemini-acp",
      displayName: "Gemini CLI",
      command: GEMINI_BIN,
      args: GEMINI_ACP_ARGS,
      homeVariable: "GEMINI_CLI_HOME",
      modes: { build: "default", plan: "plan" },
    },
    env: (server, home, tmp) => geminiAcpEnv({ serverUrl: server.url, home, tmp }),
  },
  {
    name: "opencode",
    version: "1.18.33",
    protocol: chatCompletionsProtocol,
    definition: {
      ...common,
      id: "opencode-acp",
      displayName: "OpenCode",
      command: OPENCODE_BIN,
      args: OPENCODE_ACP_ARGS,
      homeVariable: "XDG_DATA_HOME",
      modes: { build: "build", plan: "plan" },
    },
    env: async (server, home, tmp) => opencodeAcpEnv({ serverUrl: server.url, home, tmp }),
  },
];

interface World {
  server: FakeServer;
  repo: string;
  turn(prompt: string, options?: { decisions?: Decision[]; resume?: string; mode?: "build" | "plan" }): Promise<TestIO>;
  record(io: TestIO, scenario: string): Promise<void>;
  close(): Promise<void>;
}

async function world(agent: Agent): Promise<World> {
  const server = await startFakeServer([agent.protocol]);
  const dir = await mkdtemp(path.join(os.tmpdir(), `offrun-acp-${agent.name}-`));
  const [home, tmp] = [path.join(dir, "home"), path.join(dir, "tmp")];
  await Promise.all([mkdir(home, { recursive: true }), mkdir(tmp, { recursive: true })]);
  const gitEnv = { PATH: process.env.PATH, HOME: home, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" };
  const repo = await makeRepo(path.join(dir, "repo"), {
    ...gitEnv,
    GIT_AUTHOR_NAME: "t",
    GIT_AUTHOR_EMAIL: "t@example.com",
    GIT_COMMITTER_NAME: "t",
    GIT_COMMITTER_EMAIL: "t@example.com",
  });
  const env = await agent.env(server, home, tmp);
  return {
    server,
    repo,
    async turn(prompt, options = {}) {
      const io = testIO({ decisions: options.decisions });
      const input: TurnInput = {
        prompt,
        mode: options.mode ?? "build",
        cwd: repo,
        binary: agent.definition.command,
        env,
        ...(options.resume ? { resumeSessionId: options.resume } : {}),
      };
      await runAcpTurn(agent.definition, input, io);
      return io;
    },
    async record(io, scenario) {
      if (!RECORD) return;
      const folder = path.join(PROJECT_ROOT, "test", "fixtures", "acp", agent.name, agent.version);
      await mkdir(folder, { recursive: true });
      // Paths of this run's temp folder are replaced, so fixtures do not change with every recording.
      const text = io.agentLines.join("\n").split(dir).join("/tmp/offrun-acp");
      await writeFile(path.join(folder, `${scenario}.jsonl`), `${text}\n`);
    },
    close: async () => {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function sessionIdOf(io: TestIO): string {
  const session = ofType(io.events, "session")[0];
  if (!session) throw new Error("no session event");
  return session.sessionId;
}

/** Gemini CLI 0.61.0 names a session's file by minute and id prefix: loading it within the same minute overwrites it. */
async function nextMinute(): Promise<void> {
  const wait = 60_000 - (Date.now() % 60_000) + 500;
  await new Promise((resolve) => setTimeout(resolve, wait));
}

describe.each(AGENTS)("$name over ACP", (agent) => {
  let w: World;
  beforeEach(async () => {
    w = await world(agent);
  });
  afterEach(async () => {
    await w.close();
  });

  test("a text turn ends with the whole message and one completed turn_end", async () => {
    w.server.script({ kind: "text", text: "Hello from the fake model." });
    const io = await w.turn("Say hello");
    await w.record(io, "text");
    expect(ofType(io.events, "session")).toHaveLength(1);
    expect(ofType(io.events, "text").map((e) => e.text)).toEqual(["Hello from the fake model."]);
    expect(turnEnd(io.events).outcome).toBe("completed");
    expect(ofType(io.events, "usage").length).toBeGreaterThan(0);
  });

  test("a write asks for permission, and an allowed write lands in the worktree", async () => {
    const file = path.join(w.repo, "hello.txt");
    w.server.script(
      { kind: "write_file", path: file, content: "hello\n", text: "Writing hello.txt." },
      { kind: "text", text: "Wrote hello.txt." },
    );
    const io = await w.turn("Create hello.txt", { decisions: [{ kind: "allow" }] });
    await w.record(io, "write-allowed");
    expect(io.requests).toHaveLength(1);
    expect(io.requests[0]).toMatchObject({ kind: "approval", alwaysKey: "edit" });
    expect(await readFile(file, "utf8")).toBe("hello\n");
    expect(ofType(io.events, "tool_result")).toEqual([expect.objectContaining({ isError: false })]);
    expect(turnEnd(io.events).outcome).toBe("completed");
  });

  test("a rejected write is not written and the agent hears of the refusal", async () => {
    const file = path.join(w.repo, "nope.txt");
    w.server.script({ kind: "write_file", path: file, content: "nope\n" }, { kind: "text", text: "Understood." });
    const io = await w.turn("Create nope.txt", { decisions: [{ kind: "deny" }] });
    await w.record(io, "write-rejected");
    expect(io.requests).toHaveLength(1);
    expect(existsSync(file)).toBe(false);
    // The model's next request carries the tool's refusal (or the turn ends there, as the user asked).
    const followUp = w.server.turnRequests().slice(1);
    const told = followUp.some((r) => /reject|denied|cancel|declined|not allowed/i.test(JSON.stringify(r.body)));
    expect(told || ofType(io.events, "tool_result").some((r) => r.isError)).toBe(true);
    expect(["completed", "cancelled"]).toContain(turnEnd(io.events).outcome);
  });

  test("a second turn resumes the session with its history", async () => {
    w.server.script({ kind: "text", text: "First answer." }, { kind: "text", text: "Second answer." });
    const first = await w.turn("Remember the word avocado");
    if (agent.name === "gemini") await nextMinute();
    const second = await w.turn("Which word?", { resume: sessionIdOf(first) });
    await w.record(second, "resume");
    expect(sessionIdOf(second)).toBe(sessionIdOf(first));
    expect(ofType(second.events, "notice")).toEqual([]);
    // History replayed on load is not logged again as this turn's text.
    expect(ofType(second.events, "text").map((e) => e.text)).toEqual(["Second answer."]);
    const last = w.server.turnRequests().at(-1);
    expect(JSON.stringify(last?.body)).toContain("avocado");
    expect(JSON.stringify(last?.body)).toContain("First answer.");
  }, 150_000);
});

test("an agent that never answers initialize fails the turn with a clear error", async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), "offrun-acp-silent-"));
  const stub = path.join(dir, "silent-agent");
  // Reads nothing and says nothing: what a wrong command (a REPL, a server) looks like over stdio.
  await writeFile(stub, "#!/bin/sh\nsleep 60\n");
  await chmod(stub, 0o755);
  const definition: AcpAgentDefinition = {
    ...common,
    id: "silent",
    displayName: "Silent Agent",
    command: stub,
    args: ["--acp"],
    homeVariable: "HOME",
    modes: {},
    initializeTimeoutMs: 1_000,
  };
  const io = testIO();
  const started = Date.now();
  await runAcpTurn(
    definition,
    { prompt: "hi", mode: "build", cwd: dir, binary: stub, env: { PATH: process.env.PATH } },
    io,
  );
  expect(Date.now() - started).toBeLessThan(10_000);
  const [error] = ofType(io.events, "error");
  expect(error).toMatchObject({ kind: "timed_out" });
  expect(error?.message).toMatch(/did not answer the ACP `initialize` request within 1 s/);
  expect(error?.message).toContain(stub);
  expect(turnEnd(io.events).outcome).toBe("failed");
  await rm(dir, { recursive: true, force: true });
});
