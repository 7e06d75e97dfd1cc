import fs from "node:fs/promises";
import path from "node:path";
import { anthropicProtocol } from "../fake-server/anthropic.js";
import { startFakeServer, type FakeServer } from "../fake-server/server.js";
import { CLAUDE_BIN, claudeTestEnv } from "../helpers/claude-env.js";
import { makeRepo, makeSandbox, runOffrun, type Sandbox } from "../helpers/offrun.js";

// `offrun switch`: the user moves an agent to another login of the same CLI. The real Claude Code
// runs against one fake server per login; the second login must receive the whole conversation.

describe("offrun switch with the real Claude Code", () => {
  let box: Sandbox;
  let repo: string;
  let env: NodeJS.ProcessEnv;
  const servers: Record<string, FakeServer> = {};

  beforeAll(async () => {
    box = await makeSandbox("offrun-sw-");
    repo = await makeRepo(path.join(box.dir, "repo"), box.env);
    servers.work = await startFakeServer([anthropicProtocol]);
    servers.personal = await startFakeServer([anthropicProtocol]);
    const base = claudeTestEnv({
      serverUrl: "http://127.0.0.1:9",
      home: box.home,
      tmp: box.tmp,
      configDir: "",
      subscriber: true,
    });
    delete base.CLAUDE_CONFIG_DIR;
    delete base.ANTHROPIC_BASE_URL; // each login names its own server
    env = {
      ...base,
      OFFRUN_HOME: box.offrunHome,
      GIT_CONFIG_GLOBAL: box.env.GIT_CONFIG_GLOBAL,
      OFFRUN_CLAUDE_BIN: CLAUDE_BIN,
    };
    for (const [label, server] of Object.entries(servers)) {
      const added = await offrun(
        "logins",
        "add",
        "claude",
        label,
        "--no-login",
        "--env",
        `ANTHROPIC_BASE_URL=${server.url}`,
      );
      expect(added).toSucceed();
    }
  });

  afterAll(async () => {
    await box.cleanup();
    await Promise.all(Object.values(servers).map((s) => s.close()));
  });

  const offrun = (...args: string[]) => runOffrun(args, { env, cwd: repo });

  test("the session moves to the other login, which resumes it with the whole conversation", async () => {
    servers.personal!.script({ kind: "text", text: "The codename is BLUE-HERON." });
    const started = await offrun("start", "--wait", "--login", "personal", "--name", "mover", "remember the codename");
    expect(started).toSucceed();

    const switched = await offrun("switch", "mover", "--login", "work", "--json");
    expect(switched).toSucceed();
    expect(JSON.parse(switched.stdout)).toMatchObject({ from: "personal", to: "work", sessionCopied: true });

    servers.work!.script({ kind: "text", text: "Still here on work." });
    const before = servers.work!.turnRequests().length;
    const sent = await offrun("send", "--wait", "mover", "what was the codename?");
    expect(sent).toSucceed();
    expect(sent.stdout).toContain("Still here on work.");
    // The work login's server got the first turn's history: the session was resumed, not restarted.
    const body = JSON.stringify(servers.work!.turnRequests().slice(before)[0]!.body);
    expect(body).toContain("remember the codename");
    expect(body).toContain("BLUE-HERON");

    const shown = JSON.parse((await offrun("show", "mover", "--json")).stdout) as {
      agent: { account: string };
      events: { type: string; from?: string; to?: string }[];
    };
    expect(shown.agent.account).toBe("work");
    expect(shown.events.find((e) => e.type === "account_switch")).toMatchObject({ from: "personal", to: "work" });
  });

  test("switching to the login it is on, or to an unknown one, is refused", async () => {
    const same = await offrun("switch", "mover", "--login", "work");
    expect(same.exitCode).toBe(2);
    expect(same.stderr).toContain("already on login 'work'");
    const unknown = await offrun("switch", "mover", "--login", "nobody");
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain("no login 'nobody'");
  });

  // Removing a login in use stranded its agents: `rm` succeeded silently, then `send` and the
  // documented `switch` both failed with "no login", and --purge deleted the sessions they needed.
  test("a login in use is not removed without naming its agents; with --force its home stays and switch moves them on", async () => {
    servers.personal!.script({ kind: "text", text: "The word is AMBER." });
    expect(
      await offrun("start", "--wait", "--login", "personal", "--name", "stranded", "remember the word"),
    ).toSucceed();
    const home = path.join(box.offrunHome, "accounts", "claude", "personal");

    const refused = await offrun("logins", "rm", "claude", "personal", "--purge");
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stderr).toContain("is used by agent stranded");
    expect(refused.stderr).toContain("offrun switch stranded --login <label>");
    expect(refused.stderr).toContain("--force");

    const forced = await offrun("logins", "rm", "claude", "personal", "--purge", "--force");
    expect(forced).toSucceed();
    expect(forced.stdout).toContain("is kept, even with --purge");
    await fs.access(home);

    // The advice, followed: the agent moves on with its session.
    expect(await offrun("switch", "stranded", "--login", "work")).toSucceed();
    servers.work!.script({ kind: "text", text: "Still AMBER, on work." });
    const before = servers.work!.turnRequests().length;
    const sent = await offrun("send", "--wait", "stranded", "what was the word?");
    expect(sent).toSucceed();
    expect(JSON.stringify(servers.work!.turnRequests().slice(before)[0]!.body)).toContain("AMBER");
  });
});
