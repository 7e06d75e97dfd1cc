import fs from "node:fs/promises";
import path from "node:path";
import { geminiProtocol } from "../fake-server/gemini.js";
import { startFakeServer, type FakeServer } from "../fake-server/server.js";
import { GEMINI_ACP_ARGS, GEMINI_BIN } from "../helpers/acp-env.js";
import { prepareGeminiHome } from "../helpers/gemini-env.js";
import { makeRepo, makeSandbox, runOffrun, type Sandbox } from "../helpers/offrun.js";

// A custom ACP agent declared in ~/.offrun/harnesses.json, as the README shows, is found
// by the same registry lookup as a built-in CLI everywhere. Tried as a new user would, `accounts
// add` answered "Unknown harness" and `quota` did not list it. Here the pinned Gemini CLI 0.61.0
// in `--acp` mode is the declared agent, against the fake Gemini API.

const ID = "gem";

let server: FakeServer;
let box: Sandbox;
let repo: string;
let env: NodeJS.ProcessEnv;
let secondHome: string;
const offrun = (...args: string[]) => runOffrun(args, { env, cwd: repo });
const json = async <T>(...args: string[]) => {
  const result = await offrun(...args, "--json");
  expect(result.stderr).toBe("");
  return JSON.parse(result.stdout) as T;
};

/** Every file under `dir`, relative to it. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => path.relative(dir, path.join(e.parentPath, e.name)));
}

beforeAll(async () => {
  server = await startFakeServer([geminiProtocol]);
  box = await makeSandbox("offrun-e2e-custom-");
  repo = await makeRepo(path.join(box.dir, "repo"), box.env, { "README.md": "# demo\n" });
  const entry = {
    id: ID,
    displayName: "Gem (ACP)",
    command: GEMINI_BIN,
    args: GEMINI_ACP_ARGS,
    // The login's home goes into this variable: each login keeps its own settings and sessions.
    homeVariable: "GEMINI_CLI_HOME",
    defaultHome: "~/gem-default",
    env: { GOOGLE_GEMINI_BASE_URL: server.url, NO_COLOR: "1" },
    modes: { build: "default", plan: "plan" },
    initializeTimeoutSeconds: 60,
  };
  await fs.writeFile(path.join(box.offrunHome, "harnesses.json"), JSON.stringify({ harnesses: [entry] }, null, 2));
  await prepareGeminiHome({ geminiHome: path.join(box.home, "gem-default") });
  secondHome = path.join(box.dir, "gem-second");
  await prepareGeminiHome({ geminiHome: secondHome });
  // The key is the login's environment, as a gateway's token would be; harnesses.json refuses secrets.
  env = { ...box.env, GEMINI_API_KEY: "test", NO_COLOR: "1" };
});

afterAll(async () => {
  await box.cleanup();
  await server.close();
});

test("a second login is added to the declared agent like to a built-in CLI", async () => {
  const added = await offrun("logins", "add", ID, "second", "--home", secondHome, "--no-login");
  expect(added.stderr).toBe("");
  expect(added).toSucceed();
  expect(added.stdout).toContain("Added login 'second' of Gem (ACP)");
  const listed = await json<{ accounts: { harness: string; label: string; home: string }[] }>("logins");
  expect(listed.accounts.filter((a) => a.harness === ID).map((a) => [a.label, a.home])).toEqual([
    ["default", path.join(box.home, "gem-default")],
    ["second", secondHome],
  ]);
});

test("an agent starts on the added login, runs in its home, and shows in ls with it", async () => {
  server.script({ kind: "text", text: "Hello from the second login." });
  const started = await offrun("start", "--wait", "--harness", ID, "--login", "second", "--name", "hi", "say hi");
  expect(started.stderr).toBe("");
  expect(started).toSucceed();
  expect(started.stdout).toContain("Hello from the second login.");

  const ls = await json<{ agents: { name: string; harness: string; account: string; status: string }[] }>("ls");
  expect(ls.agents).toEqual([expect.objectContaining({ name: "hi", harness: ID, account: "second", status: "idle" })]);
  expect((await offrun("ls")).stdout).toMatch(/hi\s.*gem.*second/);
  // The CLI ran with the login's home in its home variable: its chat is there, not in the default home.
  expect((await filesUnder(path.join(secondHome, ".gemini", "tmp"))).some((f) => f.includes("chats"))).toBe(true);
  expect(await filesUnder(path.join(box.home, "gem-default", ".gemini", "tmp"))).toEqual([]);
});

test("offrun quota lists both logins of the declared agent, with what an ACP agent can tell", async () => {
  const rows = await json<{ harness: string; label: string; coverage: string; home: string }[]>("quota");
  const gem = rows.filter((r) => r.harness === ID);
  expect(gem.map((r) => [r.label, r.coverage])).toEqual([
    ["default", "limits"],
    ["second", "limits"],
  ]);
  expect((await offrun("quota")).stdout).toMatch(/Gem \(ACP\) · second\s+no usage data: limits only/);
});

test("the declared agent reviews another agent's work read-only, on a login of its own", async () => {
  await fs.writeFile(path.join(repo, ".worktrees", "hi", "notes.md"), "a change to review\n");
  const review = { verdict: "comment", summary: "Read notes.md.", findings: [] };
  server.script({ kind: "text", text: JSON.stringify(review) });
  const result = await offrun("review", "hi", "--harness", ID, "--login", "default", "--wait", "--json");
  expect(result.stderr).toBe("");
  expect(result).toSucceed();
  const { review: done } = JSON.parse(result.stdout) as {
    review: { outcome: string; verdict?: string; reviewer: { harness: string; account: string } };
  };
  expect(done).toMatchObject({
    outcome: "completed",
    verdict: "comment",
    reviewer: { harness: ID, account: "default" },
  });
});
