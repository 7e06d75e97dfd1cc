import path from "node:path";
import { anthropicProtocol } from "../fake-server/anthropic.js";
import { startFakeServer, type FakeServer } from "../fake-server/server.js";
import { CLAUDE_BIN, claudeTestEnv } from "../helpers/claude-env.js";
import { makeRepo, makeSandbox, runOffrun, type Sandbox } from "../helpers/offrun.js";

// A full disk when a failover copies the session to the next login (the crash matrix's ENOSPC at
// `session-copy`): the turn ends failed saying the disk is full, and the session stays the
// agent's, so the next message goes on with the whole conversation.

let box: Sandbox;
let repo: string;
let env: NodeJS.ProcessEnv;
const servers: Record<string, FakeServer> = {};

beforeAll(async () => {
  box = await makeSandbox("offrun-fo-full-");
  repo = await makeRepo(path.join(box.dir, "repo"), box.env);
  servers.default = await startFakeServer([anthropicProtocol]);
  servers.spare = await startFakeServer([anthropicProtocol]);
  env = {
    ...claudeTestEnv({
      serverUrl: servers.default.url,
      home: box.home,
      tmp: box.tmp,
      configDir: path.join(box.home, ".claude"),
      subscriber: true,
    }),
    OFFRUN_HOME: box.offrunHome,
    GIT_CONFIG_GLOBAL: box.env.GIT_CONFIG_GLOBAL,
    OFFRUN_CLAUDE_BIN: CLAUDE_BIN,
  };
  const added = await offrun(
    "logins",
    "add",
    "claude",
    "spare",
    "--no-login",
    "--env",
    `ANTHROPIC_BASE_URL=${servers.spare.url}`,
  );
  expect(added).toSucceed();
  // The companion `accounts add` started has no fault; the next one does.
  expect(await offrun("companion", "stop")).toSucceed();
});

afterAll(async () => {
  await offrun("companion", "stop");
  await box.cleanup();
  await Promise.all(Object.values(servers).map((s) => s.close()));
});

const offrun = (...args: string[]) => runOffrun(args, { env, cwd: repo });

test("a full disk at the session copy of a failover ends the turn saying so, and the session goes on", async () => {
  // Broke: the turn ended "Offrun could not run this turn: ENOSPC: …", not saying the disk was full.
  const worktree = path.join(repo, ".worktrees", "full");
  servers.default!.script(
    { kind: "write_file", path: path.join(worktree, "one.txt"), content: "one\n" },
    { kind: "usage_limit", resetsAt: Math.floor(Date.now() / 1000) + 3600 },
  );
  expect(
    await runOffrun(["companion", "start"], { env: { ...env, OFFRUN_FAULT: "session-copy:ENOSPC" }, cwd: repo }),
  ).toSucceed();
  const started = await offrun("start", "--wait", "--login", "default", "--name", "full", "write one.txt");
  expect(started.exitCode).not.toBe(0);
  const shown = JSON.parse((await offrun("show", "full", "--json")).stdout) as {
    agent: { status: string; account: string; sessionId?: string };
    events: { type: string; outcome?: string; reason?: string }[];
  };
  const end = shown.events.findLast((e) => e.type === "turn_end");
  expect(end).toMatchObject({ outcome: "failed" });
  expect(end?.reason).toMatch(
    new RegExp(`^The disk holding ${repo} is full \\(\\d+ KB free\\): free space, then send a message to go on\\.$`),
  );
  expect(shown.agent).toMatchObject({ status: "failed", account: "default" });
  expect(shown.agent.sessionId).toBeDefined();

  // Room again (a companion without the fault): the next message resumes the same conversation.
  expect(await offrun("companion", "stop")).toSucceed();
  servers.default!.script({ kind: "text", text: "Going on." });
  servers.spare!.script({ kind: "text", text: "Going on." });
  const before = [servers.default!.turnRequests().length, servers.spare!.turnRequests().length];
  expect(await offrun("send", "--wait", "full", "go on")).toSucceed();
  const sent = [...servers.default!.turnRequests().slice(before[0]), ...servers.spare!.turnRequests().slice(before[1])]
    .map((r) => JSON.stringify(r.body))
    .join("\n");
  expect(sent.includes("write one.txt")).toBe(true);
});
