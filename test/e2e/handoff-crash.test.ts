import path from "node:path";
import { anthropicProtocol } from "../fake-server/anthropic.js";
import { responsesProtocol } from "../fake-server/openai-responses.js";
import { startFakeServer, type FakeServer } from "../fake-server/server.js";
import { claudeCodexEnv } from "../helpers/claude-codex-env.js";
import { makeRepo, makeSandbox, runOffrun, type Sandbox } from "../helpers/offrun.js";

// A companion killed in the middle of a handoff (the crash matrix's kill at the handoff's line):
// the record already names the other CLI, which has no session yet. The next message must still
// reach that CLI with the task and the conversation, not alone in a blank session.

let box: Sandbox;
let repo: string;
let env: NodeJS.ProcessEnv;
let claudeServer: FakeServer;
let codexServer: FakeServer;

beforeAll(async () => {
  box = await makeSandbox("offrun-hocrash-");
  repo = await makeRepo(path.join(box.dir, "repo"), box.env);
  claudeServer = await startFakeServer([anthropicProtocol]);
  codexServer = await startFakeServer([responsesProtocol]);
  env = await claudeCodexEnv(box, claudeServer.url, codexServer.url);
});

afterAll(async () => {
  await offrun({}, "companion", "stop");
  await box.cleanup();
  await Promise.all([claudeServer.close(), codexServer.close()]);
});

const offrun = (extra: NodeJS.ProcessEnv, ...args: string[]) =>
  runOffrun(args, { env: { ...env, ...extra }, cwd: repo });

test("after a kill at the handoff's line, the next message gives the new CLI the task and the conversation", async () => {
  // Broke: Codex got "go on" alone in a new session: the task and Claude Code's words were lost to it.
  claudeServer.script({ kind: "text", text: "Half of the parser is done." });
  expect(await offrun({}, "start", "--wait", "--name", "relay", "write the parser")).toSucceed();
  expect(await offrun({}, "companion", "stop")).toSucceed();

  // This companion's first log line is the handoff's: it dies there, after the record moved to Codex.
  expect(await offrun({ OFFRUN_FAULT: "append:KILL@1" }, "companion", "start")).toSucceed();
  const handed = await offrun({}, "handoff", "relay", "--harness", "codex", "--wait", "finish it");
  expect(handed.exitCode).not.toBe(0);

  codexServer.script({ kind: "text", text: "Finished the parser." });
  const before = codexServer.turnRequests().length;
  expect(await offrun({}, "send", "--wait", "relay", "go on")).toSucceed();
  const sent = codexServer
    .turnRequests()
    .slice(before)
    .map((r) => JSON.stringify(r.body))
    .join("\n");
  const carried = (text: string) => sent.includes(text);
  expect({
    message: carried("go on"),
    task: carried("write the parser"),
    words: carried("Half of the parser is done."),
  }).toEqual({
    message: true,
    task: true,
    words: true,
  });
});
