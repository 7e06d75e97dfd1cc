import fs from "node:fs/promises";
import path from "node:path";
import { anthropicProtocol } from "../fake-server/anthropic.js";
import { responsesProtocol } from "../fake-server/openai-responses.js";
import { startFakeServer, type FakeServer } from "../fake-server/server.js";
import { CLAUDE_BIN, claudeTestEnv } from "../helpers/claude-env.js";
import { CODEX_BIN, codexTestEnv, prepareCodexHome } from "../helpers/codex-env.js";
import { eventually, makeRepo, makeSandbox, runOffrun, type Sandbox } from "../helpers/offrun.js";

// Tried as a new user would: logins added with their own homes and the CLI's own
// default home never used. A limit must reach a login that can run, the user's message must reach
// the model once, and when every login is out the agent goes on by itself after the reset, once.

const nowSeconds = () => Math.floor(Date.now() / 1000);

interface Shown {
  agent: { account: string; status: string; resume?: { at: string; account: string } };
  events: { type: string; phase?: string; from?: string; to?: string; message?: string; text?: string }[];
}

/** How often `text` occurs in the conversation a model request carries. */
function occurrences(body: unknown, text: string): number {
  const conversation =
    (body as { messages?: unknown; input?: unknown }).messages ?? (body as { input?: unknown }).input;
  return JSON.stringify(conversation).split(text).length - 1;
}

/**
 * A Claude Code home signed in to a subscription, as `claude auth login` leaves it on Linux. The
 * test writes it; Offrun never opens it (test/integration/credentials.test.ts checks that).
 */
async function signedInClaudeHome(home: string): Promise<void> {
  await fs.mkdir(home, { recursive: true, mode: 0o700 });
  const oauth = {
    claudeAiOauth: {
      accessToken: "fake-access",
      refreshToken: "fake-refresh",
      expiresAt: Date.now() + 365 * 86_400_000,
      scopes: ["user:inference", "user:profile"],
      subscriptionType: "max",
    },
  };
  await fs.writeFile(path.join(home, ".credentials.json"), JSON.stringify(oauth), { mode: 0o600 });
}

describe("Claude Code: logins added with their own homes, no default home", () => {
  let box: Sandbox;
  let repo: string;
  let env: NodeJS.ProcessEnv;
  const servers: Record<string, FakeServer> = {};
  const offrun = (...args: string[]) => runOffrun(args, { env, cwd: repo });
  const show = async (name: string) => JSON.parse((await offrun("show", name, "--json")).stdout) as Shown;

  beforeAll(async () => {
    box = await makeSandbox("offrun-lim-claude-");
    repo = await makeRepo(path.join(box.dir, "repo"), box.env);
    const base = claudeTestEnv({ serverUrl: "http://127.0.0.1:9", home: box.home, tmp: box.tmp, configDir: "" });
    // The sign-ins live in the homes, as after `claude auth login`: nothing in the environment.
    for (const name of ["CLAUDE_CONFIG_DIR", "ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN"])
      delete base[name];
    env = {
      ...base,
      OFFRUN_HOME: box.offrunHome,
      GIT_CONFIG_GLOBAL: box.env.GIT_CONFIG_GLOBAL,
      OFFRUN_CLAUDE_BIN: CLAUDE_BIN,
    };
    for (const label of ["alpha", "beta", "gamma"]) {
      servers[label] = await startFakeServer([anthropicProtocol]);
      const home = path.join(box.dir, `claude-${label}`);
      await signedInClaudeHome(home);
      const added = await offrun(
        "logins",
        "add",
        "claude",
        label,
        "--home",
        home,
        "--no-login",
        "--env",
        `ANTHROPIC_BASE_URL=${servers[label]!.url}`,
      );
      expect(added).toSucceed();
    }
  });

  afterAll(async () => {
    await box.cleanup();
    await Promise.all(Object.values(servers).map((s) => s.close()));
  });

  test("offrun logins says the Default login, never used and with no sign-in, is signed out", async () => {
    const listed = JSON.parse((await offrun("logins", "--json")).stdout) as {
      accounts: { harness: string; label: string; signedIn?: boolean; signIn: { state: string } }[];
    };
    const claude = listed.accounts.filter((a) => a.harness === "claude");
    expect(claude.find((a) => a.label === "default")?.signIn.state).toBe("signed-out");
    expect(claude.find((a) => a.label === "alpha")?.signIn.state).toBe("signed-in");
  });

  test("a limit after the first tool call moves to a signed-in login, which gets the message once and finishes", async () => {
    const worktree = path.join(repo, ".worktrees", "mid-turn");
    const message = "write step1.txt then finish (task 7f3a)";
    servers.alpha!.script(
      { kind: "write_file", path: path.join(worktree, "step1.txt"), content: "done on alpha\n" },
      { kind: "usage_limit", resetsAt: nowSeconds() + 3 * 3600 },
    );
    servers.beta!.script({ kind: "text", text: "Finished on beta." });
    const before = { beta: servers.beta!.turnRequests().length, gamma: servers.gamma!.turnRequests().length };

    const result = await offrun("start", "--wait", "--login", "alpha", "--name", "mid-turn", message);
    expect(result).toSucceed();
    expect(result.stdout).toContain("Finished on beta.");
    expect(await fs.readFile(path.join(worktree, "step1.txt"), "utf8")).toBe("done on alpha\n");

    const first = servers.beta!.turnRequests()[before.beta]!;
    expect(occurrences(first.body, message)).toBe(1);
    expect(JSON.stringify(first.body)).toContain("usage limit mid-turn"); // the continuation
    expect(JSON.stringify(first.body)).toContain("step1.txt"); // the Write call made on alpha
    expect(servers.gamma!.turnRequests().length).toBe(before.gamma);
    const shown = await show("mid-turn");
    expect(shown.agent).toMatchObject({ account: "beta", status: "idle" });
    expect(shown.events.find((e) => e.type === "account_switch")).toMatchObject({ from: "alpha", to: "beta" });
    // The continuation is Offrun's words, never shown as the user's.
    expect(shown.events.filter((e) => e.type === "user_message").map((e) => e.text)).toEqual([message]);
  });

  test("a login that answers 'not logged in' is marked signed out and the chain goes on to the next", async () => {
    const worktree = path.join(repo, ".worktrees", "chain-on");
    servers.alpha!.script({ kind: "usage_limit", resetsAt: nowSeconds() + 3 * 3600 });
    // beta is the best pick after alpha (it just finished a turn); make it refuse the sign-in.
    // 2.1.332 tries a 401 once more before it gives up: refuse both.
    servers.beta!.script({ kind: "unauthorized" }, { kind: "unauthorized" }, { kind: "unauthorized" });
    servers.gamma!.script(
      { kind: "write_file", path: path.join(worktree, "done.txt"), content: "gamma\n" },
      { kind: "text", text: "Finished on gamma." },
    );
    const result = await offrun(
      "start",
      "--wait",
      "--login",
      "alpha",
      "--force",
      "--name",
      "chain-on",
      "finish the job",
    );
    expect(result).toSucceed();
    expect(result.stdout).toContain("Finished on gamma.");
    const shown = await show("chain-on");
    expect(shown.agent.account).toBe("gamma");
    expect(shown.events.filter((e) => e.type === "account_switch").map((e) => e.to)).toEqual(["beta", "gamma"]);
    expect(shown.events.some((e) => e.type === "notice" && /beta is not signed in/.test(e.message ?? ""))).toBe(true);
    // Nothing had run on alpha, but Claude had written the message into the session: it goes on, once.
    expect(occurrences(servers.gamma!.turnRequests().at(-2)!.body, "finish the job")).toBe(1);

    const quota = JSON.parse(
      (await offrun("start", "--json", "--name", "next-pick", "--harness", "claude", "x")).stdout,
    ) as {
      account: string;
    };
    expect(quota.account).toBe("gamma"); // alpha is limited, beta signed out, default has no home
    await offrun("stop", "next-pick");
  });

  test("with every login out, it waits for the reset, goes on by itself once, and never hammers", async () => {
    const fresh = await makeSandbox("offrun-lim-wait-");
    const server = await startFakeServer([anthropicProtocol]);
    try {
      const waitRepo = await makeRepo(path.join(fresh.dir, "repo"), fresh.env);
      const waitEnv = { ...env, OFFRUN_HOME: fresh.offrunHome };
      const run = (...args: string[]) => runOffrun(args, { env: waitEnv, cwd: waitRepo });
      const home = path.join(fresh.dir, "claude-solo");
      await signedInClaudeHome(home);
      expect(
        (
          await run(
            "logins",
            "add",
            "claude",
            "solo",
            "--home",
            home,
            "--no-login",
            "--env",
            `ANTHROPIC_BASE_URL=${server.url}`,
          )
        ).exitCode,
      ).toBe(0);
      const worktree = path.join(waitRepo, ".worktrees", "waits");
      server.script(
        { kind: "write_file", path: path.join(worktree, "a.txt"), content: "a\n" },
        { kind: "usage_limit", resetsAt: nowSeconds() + 12 },
        { kind: "text", text: "Went on after the reset." },
      );
      const limited = await run("start", "--wait", "--name", "waits", "write a.txt and wrap up (task 91c)");
      expect(limited.exitCode).not.toBe(0);
      const waiting = JSON.parse((await run("show", "waits", "--json")).stdout) as Shown;
      expect(waiting.agent.status).toBe("limited");
      expect(waiting.agent.resume?.account).toBe("solo");
      expect((await run("ls")).stdout).toMatch(/limited · resumes (\w{3} )?\d{1,2}:\d\d( [AP]M)? on solo/);
      const requestsWhileLimited = server.turnRequests().length;

      const done = await eventually(
        async () => {
          const shown = JSON.parse((await run("show", "waits", "--json")).stdout) as Shown;
          return shown.agent.status === "idle" ? shown : undefined;
        },
        // The CLI names the reset's minute: the wait can run to that minute's end plus the jitter.
        100_000,
        "the agent to go on after the reset",
      );
      expect(done.events.filter((e) => e.type === "reset_wait").map((e) => e.phase)).toEqual(["waiting", "resumed"]);
      // One request after the reset, and it went on from where it stopped: the message once.
      expect(server.turnRequests().length).toBe(requestsWhileLimited + 1);
      const resumed = server.turnRequests().at(-1)!;
      expect(resumed.receivedAt).toBeGreaterThan(Date.parse(waiting.agent.resume!.at) - 1000);
      expect(occurrences(resumed.body, "write a.txt and wrap up (task 91c)")).toBe(1);
      expect(JSON.stringify(done.events)).toContain("Went on after the reset.");
    } finally {
      await fresh.cleanup();
      await server.close();
    }
  }, 180_000);
});

describe("Codex: a limit after the first tool call", () => {
  let box: Sandbox;
  let repo: string;
  let env: NodeJS.ProcessEnv;
  const servers: Record<string, FakeServer> = {};
  const offrun = (...args: string[]) => runOffrun(args, { env, cwd: repo });

  beforeAll(async () => {
    box = await makeSandbox("offrun-lim-codex-");
    repo = await makeRepo(path.join(box.dir, "repo"), box.env);
    // No ~/.codex: the Default login was never used.
    env = {
      ...codexTestEnv({ home: box.home, tmp: box.tmp, codexHome: path.join(box.home, ".codex") }),
      OFFRUN_HOME: box.offrunHome,
      GIT_CONFIG_GLOBAL: box.env.GIT_CONFIG_GLOBAL,
      OFFRUN_CODEX_BIN: CODEX_BIN,
    };
    for (const label of ["work", "personal"]) {
      servers[label] = await startFakeServer([responsesProtocol]);
      const home = path.join(box.dir, `codex-${label}`);
      await prepareCodexHome({ serverUrl: servers[label]!.url, codexHome: home });
      expect(await offrun("logins", "add", "codex", label, "--home", home, "--no-login")).toSucceed();
    }
  });

  afterAll(async () => {
    await box.cleanup();
    await Promise.all(Object.values(servers).map((s) => s.close()));
  });

  test("the next login resumes the thread with a continuation: the message once, and the task finishes", async () => {
    const worktree = path.join(repo, ".worktrees", "thread");
    const message = "write part1.md and wrap up (task c0d3)";
    servers.work!.script(
      { kind: "write_file", path: path.join(worktree, "part1.md"), content: "from work" },
      { kind: "usage_limit", resetsAt: nowSeconds() + 2 * 3600 },
    );
    servers.personal!.script({ kind: "text", text: "Wrapped up on personal." });
    const result = await offrun(
      "start",
      "--harness",
      "codex",
      "--login",
      "work",
      "--wait",
      "--name",
      "thread",
      message,
    );
    expect(result).toSucceed();
    expect(result.stdout).toContain("Wrapped up on personal.");
    expect(await fs.readFile(path.join(worktree, "part1.md"), "utf8")).toContain("from work");
    const first = servers.personal!.turnRequests()[0]!;
    expect(occurrences(first.body, message)).toBe(1);
    expect(JSON.stringify(first.body)).toContain("part1.md");
    expect(JSON.stringify(first.body)).toContain("usage limit mid-turn");
  });
});
