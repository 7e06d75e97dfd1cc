import fs from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { recordingNotifySend, withNotifySend } from "../helpers/notify-send.js";
import { eventually, makeRepo, makeSandbox, OFFRUN_BIN, runOffrun, type Sandbox } from "../helpers/offrun.js";

// Grok Build through the built `offrun` CLI, with the fake `grok` of test/fake-grok/ (every line
// it prints comes from xAI's published source; Grok Build does not install here). Two logins,
// each its own GROK_HOME signed in as `grok login` leaves it; alpha's free tier is used up.

const FAKE_GROK = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../fake-grok/grok.mjs");

interface Shown {
  agent: { account: string; status: string; sessionId?: string };
  events: { type: string; from?: string; to?: string; message?: string; text?: string; resetsAt?: string }[];
}

let box: Sandbox;
let repo: string;
let env: NodeJS.ProcessEnv;
const homes: Record<string, string> = {};
const offrun = (...args: string[]) => runOffrun(args, { env, cwd: repo });
const show = async (name: string) => JSON.parse((await offrun("show", name, "--json")).stdout) as Shown;

beforeAll(async () => {
  box = await makeSandbox("offrun-e2e-grok-");
  repo = await makeRepo(path.join(box.dir, "repo"), box.env);
  env = { ...box.env, OFFRUN_GROK_BIN: FAKE_GROK, NO_COLOR: "1" };
  for (const label of ["alpha", "beta"]) {
    const home = path.join(box.dir, `grok-${label}`);
    homes[label] = home;
    await fs.mkdir(home, { recursive: true });
    await fs.writeFile(path.join(home, "auth.json"), "{}", { mode: 0o600 });
    expect(await offrun("logins", "add", "grok", label, "--home", home, "--no-login")).toSucceed();
  }
  await fs.writeFile(path.join(homes.alpha!, "fake-xai.json"), JSON.stringify({ freeUsageExhausted: true }));
});

afterAll(async () => {
  await box.cleanup();
});

test("offrun harnesses states Grok Build's oldest version and how that was found", async () => {
  const rows = JSON.parse((await offrun("harnesses", "--json")).stdout) as {
    id: string;
    version: string | null;
    minimumVersion?: { version: string; verified: string };
  }[];
  expect(rows.find((h) => h.id === "grok")).toMatchObject({
    version: "grok 1.0.6 (7d67dea) [stable]",
    minimumVersion: {
      version: "1.0.0",
      verified: "from the vendor's published source (xai-org/grok-build 1.0.0 to 1.0.6), not run here",
    },
  });
  const text = (await offrun("harnesses")).stdout;
  expect(text).toContain(
    "requires:  grok 1.0.0 or later (from the vendor's published source (xai-org/grok-build 1.0.0 to 1.0.6), not run here)",
  );
});

test("the free tier used up on alpha: the login is held out and the turn goes on on beta, in the same session", async () => {
  const result = await offrun("start", "--wait", "--harness", "grok", "--login", "alpha", "--name", "g1", "say hi");
  expect(result).toSucceed();
  // The session moved with it: on beta, Grok sees the prompt alpha's turn recorded.
  expect(result.stdout).toContain("Hello from fake Grok Build (grok-build). This session has 1 earlier prompts.");
  const shown = await show("g1");
  expect(shown.agent.account).toBe("beta");
  const limit = shown.events.find((e) => e.type === "limit_hit");
  expect(limit?.message).toContain("subscription:free-usage-exhausted");
  expect(shown.events.find((e) => e.type === "account_switch")).toMatchObject({ from: "alpha", to: "beta" });
  // Both turns ran over ACP (`agent stdio`), never headless.
  for (const label of ["alpha", "beta"]) {
    const argv = await fs.readFile(path.join(homes[label]!, "fake-grok.argv"), "utf8");
    expect(argv.trim().split("\n")).toEqual(["agent stdio"]);
  }
  // Grok names no reset: Offrun holds alpha out for its default hour.
  const logins = JSON.parse((await offrun("logins", "--json")).stdout) as {
    accounts: { harness: string; label: string; limitedUntil?: string; quota?: { limitedUntil?: string } }[];
  };
  const alpha = logins.accounts.find((a) => a.harness === "grok" && a.label === "alpha");
  const until = Date.parse(alpha?.limitedUntil ?? alpha?.quota?.limitedUntil ?? "");
  expect(until - Date.now()).toBeGreaterThan(50 * 60_000);
  expect(until - Date.now()).toBeLessThan(61 * 60_000);
});

test("Planner runs over ACP in Grok's plan mode, keeps the plan, and changes nothing", async () => {
  const result = await offrun(
    "start",
    "--wait",
    "--harness",
    "grok",
    "--login",
    "beta",
    "--mode",
    "plan",
    "--name",
    "p1",
    "plan the notes",
  );
  expect(result).toSucceed();
  expect(result.stdout).toContain("# Plan");
  expect(await fs.readFile(path.join(homes.beta!, "fake-grok.modes"), "utf8")).toContain("plan\n");
  await expect(fs.stat(path.join(repo, ".worktrees", "p1", "notes.md"))).rejects.toThrow();
});

test("a Grok session started outside Offrun notifies through the stop hook Offrun installed", async () => {
  const notifySend = await recordingNotifySend(path.join(box.dir, "notify"));
  const companionEnv = withNotifySend(env, notifySend);
  const installed = await runOffrun(["hooks", "install", "--harness", "grok", "--login", "beta"], {
    env: companionEnv,
    cwd: repo,
  });
  expect(installed).toSucceed();
  expect(await fs.readFile(path.join(homes.beta!, "hooks", "offrun.json"), "utf8")).toContain('"Stop"');
  // The companion the turns above started has no recording notify-send: this test runs its own.
  expect(await offrun("companion", "stop")).toSucceed();
  const companion = execa(process.execPath, [OFFRUN_BIN, "companion", "run"], {
    env: companionEnv,
    extendEnv: false,
    stdin: "ignore",
    reject: false,
    timeout: 60_000,
  });
  try {
    await eventually(
      () => fs.stat(path.join(box.offrunHome, "state.json")).catch(() => undefined),
      20_000,
      "the companion",
    );
    // The user's own Grok session, in a folder of their own, spoken to over ACP as an IDE would.
    const outside = path.join(box.dir, "shop");
    await fs.mkdir(outside, { recursive: true });
    const conversation = [
      { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } },
      { jsonrpc: "2.0", id: 2, method: "authenticate", params: { methodId: "cached_token" } },
      { jsonrpc: "2.0", id: 3, method: "session/new", params: { cwd: outside, mcpServers: [] } },
    ];
    const grok = execa(FAKE_GROK, ["agent", "stdio"], {
      env: { ...companionEnv, GROK_HOME: homes.beta! },
      extendEnv: false,
      input: conversation.map((m) => JSON.stringify(m)).join("\n") + "\n",
      timeout: 30_000,
    });
    const opened = await grok;
    const sessionId = (JSON.parse(opened.stdout.split("\n")[2]!) as { result: { sessionId: string } }).result.sessionId;
    // A turn in that session: the same session reopened, one prompt, then the client leaves.
    const turn = [
      ...conversation.slice(0, 2),
      { jsonrpc: "2.0", id: 3, method: "session/resume", params: { sessionId, cwd: outside, mcpServers: [] } },
      {
        jsonrpc: "2.0",
        id: 4,
        method: "session/prompt",
        params: { sessionId, prompt: [{ type: "text", text: "hi" }] },
      },
    ];
    await execa(FAKE_GROK, ["agent", "stdio"], {
      env: { ...companionEnv, GROK_HOME: homes.beta! },
      extendEnv: false,
      input: turn.map((m) => JSON.stringify(m)).join("\n") + "\n",
      timeout: 30_000,
    });
    const calls = await eventually(
      async () => ((await notifySend.calls()).length > 0 ? notifySend.calls() : undefined),
      15_000,
      "a notification",
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    // One turn finished, told once: the session's own end fires a Stop too, which is not a turn.
    expect((await notifySend.calls()).map((c) => c.slice(0, 2))).toEqual([
      ["grok · shop: finished", "Hello from fake Grok Build (grok-build). This session has 0 earlier prompts."],
    ]);
    expect(calls).toHaveLength(1);
  } finally {
    companion.kill("SIGTERM");
    await companion;
  }
}, 90_000);

// A sandboxed Grok turn reaches its real API and sign-in hosts (through the
// sandbox's proxy), and its executable configuration stays read-only.
test("a sandboxed Grok turn runs inside the sandbox, with xAI's hosts open and its config.toml read-only", async () => {
  const result = await offrun(
    "start",
    "--wait",
    "--sandbox",
    "--harness",
    "grok",
    "--login",
    "beta",
    "--name",
    "gbox",
    "hi",
  );
  expect(result).toSucceed();
  expect(result.stdout).toContain("sandboxed");
  const folder = path.join(box.offrunHome, "sandbox");
  const [project] = await fs.readdir(folder);
  const policy = JSON.parse(await fs.readFile(path.join(folder, project!, "gbox", "settings.json"), "utf8")) as {
    network: { allowedDomains: string[] };
    filesystem: { allowWrite: string[]; denyWrite: string[] };
  };
  expect(policy.network.allowedDomains).toEqual(expect.arrayContaining(["cli-chat-proxy.grok.com", "auth.x.ai"]));
  expect(policy.filesystem.allowWrite).toContain(homes.beta);
  expect(policy.filesystem.denyWrite).toEqual(
    expect.arrayContaining([path.join(homes.beta!, "hooks"), path.join(homes.beta!, "plugins")]),
  );
});
