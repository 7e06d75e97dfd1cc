import fs from "node:fs/promises";
import path from "node:path";
import { geminiProtocol } from "../fake-server/gemini.js";
import { startFakeServer, type FakeServer } from "../fake-server/server.js";
import { GEMINI_ACP_ARGS, GEMINI_BIN, geminiAcpEnv } from "../helpers/acp-env.js";
import { eventually, git, makeRepo, makeSandbox, runOffrun, type Sandbox } from "../helpers/offrun.js";

// A custom ACP agent declared in the project's .offrun/config.json (the pinned Gemini CLI 0.61.0
// in `--acp` mode against the fake Gemini API), driven through the built `offrun` CLI: its
// permission requests wait as needs-you and are answered with `offrun approve`.

interface Listing {
  agents: { name: string; status: string }[];
}
interface Shown {
  agent: { status: string; worktree: string };
  pending: { id: string; type: string; tool?: string }[];
  events: { type: string; decision?: string; reason?: string; outcome?: string; tool?: string }[];
}

const HARNESS_ID = "gemini-acp";

let server: FakeServer;
let box: Sandbox;
let repo: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  server = await startFakeServer([geminiProtocol]);
  box = await makeSandbox("offrun-e2e-acpa-");
  repo = await makeRepo(path.join(box.dir, "repo"), box.env, { "README.md": "# demo\n" });
  const agentEnv = await geminiAcpEnv({ serverUrl: server.url, home: box.home, tmp: box.tmp });
  const entry = {
    id: HARNESS_ID,
    displayName: "Gemini CLI (ACP)",
    command: GEMINI_BIN,
    args: GEMINI_ACP_ARGS,
    // Everything the fake server setup needs except the key: the loader refuses secret-looking
    // names in a project file, so GEMINI_API_KEY comes from the companion's environment below.
    env: {
      GEMINI_CLI_HOME: agentEnv.GEMINI_CLI_HOME!,
      GOOGLE_GEMINI_BASE_URL: agentEnv.GOOGLE_GEMINI_BASE_URL!,
      NO_COLOR: "1",
    },
    modes: { build: "default", plan: "plan" },
    initializeTimeoutSeconds: 60,
  };
  await fs.mkdir(path.join(repo, ".offrun"), { recursive: true });
  await fs.writeFile(
    path.join(repo, ".offrun", "config.json"),
    JSON.stringify({ idleTimeoutMinutes: 5, harnesses: [entry] }, null, 2),
  );
  env = { ...box.env, GEMINI_API_KEY: agentEnv.GEMINI_API_KEY, NO_COLOR: "1" };
  // A repository's own agents run once the user trusted its settings (README.md#trust).
  expect(await runOffrun(["trust", "--yes"], { env, cwd: repo })).toSucceed();
});

afterAll(async () => {
  await box.cleanup();
  await server.close();
});

const offrun = (...args: string[]) => runOffrun(args, { env, cwd: repo });
const status = async (name: string) =>
  (JSON.parse((await offrun("ls", "--json")).stdout) as Listing).agents.find((a) => a.name === name)?.status;
const waitFor = (name: string, wanted: string) =>
  eventually(async () => ((await status(name)) === wanted ? true : undefined), 90_000, `${name} to be ${wanted}`);
const shown = async (name: string) => JSON.parse((await offrun("show", name, "--json")).stdout) as Shown;
const worktreeOf = (name: string) => path.join(repo, ".worktrees", name);
/** Longer than waitFor's 90 s, so a stuck turn fails with what it waited for, not jest's timeout. */
const TURN_TEST_MS = 120_000;

test("offrun harnesses lists the custom ACP agent of the project", async () => {
  const result = await offrun("harnesses", "--json");
  expect(result).toSucceed();
  const rows = JSON.parse(result.stdout) as { id: string; name: string; binary: string | null; custom?: boolean }[];
  expect(rows.find((h) => h.id === HARNESS_ID)).toMatchObject({
    name: "Gemini CLI (ACP)",
    binary: GEMINI_BIN,
    custom: true,
  });
});

test(
  "a write waits as needs-you, shows as pending, and lands in the worktree only once approved",
  async () => {
    server.script(
      { kind: "write_file", path: path.join(worktreeOf("w"), "x.txt"), content: "x\n", text: "Writing x.txt." },
      { kind: "text", text: "Wrote x.txt." },
    );
    const started = await offrun("start", "--harness", HARNESS_ID, "--name", "w", "write x.txt");
    expect(started.stderr).toBe("");
    expect(started).toSucceed();
    await waitFor("w", "needs-you");

    const before = await shown("w");
    expect(before.agent.worktree).toBe(worktreeOf("w"));
    expect(before.pending).toEqual([expect.objectContaining({ type: "approval_request" })]);
    expect((await offrun("show", "w")).stdout).toContain("offrun approve w");
    await expect(fs.access(path.join(worktreeOf("w"), "x.txt"))).rejects.toThrow();

    const approved = await offrun("approve", "w");
    expect(approved.stderr).toBe("");
    expect(approved).toSucceed();
    await waitFor("w", "idle");
    expect(await fs.readFile(path.join(worktreeOf("w"), "x.txt"), "utf8")).toBe("x\n");
    await expect(fs.access(path.join(repo, "x.txt"))).rejects.toThrow();
    const after = await shown("w");
    expect(after.pending).toEqual([]);
    expect(after.events.find((e) => e.type === "decision")).toMatchObject({ decision: "allow", by: "user" });
    expect(after.events.filter((e) => e.type === "turn_end").map((e) => e.outcome)).toEqual(["completed"]);
    expect((await offrun("show", "w")).stdout).toContain("Wrote x.txt.");
  },
  TURN_TEST_MS,
);

test(
  "a denial with a reason writes nothing, and the turn ends with the agent told",
  async () => {
    server.script(
      { kind: "write_file", path: path.join(worktreeOf("w2"), "x.txt"), content: "x\n" },
      { kind: "text", text: "Understood, I will not write it." },
    );
    const requestsBefore = server.turnRequests().length;
    expect(await offrun("start", "--harness", HARNESS_ID, "--name", "w2", "write x.txt")).toSucceed();
    await waitFor("w2", "needs-you");
    const denied = await offrun("approve", "w2", "--deny", "--reason", "not that file");
    expect(denied.stderr).toBe("");
    expect(denied).toSucceed();
    await waitFor("w2", "idle");

    await expect(fs.access(path.join(worktreeOf("w2"), "x.txt"))).rejects.toThrow();
    const after = await shown("w2");
    expect(after.pending).toEqual([]);
    expect(after.events.find((e) => e.type === "decision")).toMatchObject({
      decision: "deny",
      reason: "not that file",
    });
    // ACP's permission answer has no room for a reason: the agent hears of the rejection itself,
    // and Gemini CLI 0.61.0 passes it on to the model in its next request.
    const followUp = server.turnRequests().slice(requestsBefore + 1);
    expect(followUp.some((r) => /reject|denied|cancel|declined|not allowed/i.test(JSON.stringify(r.body)))).toBe(true);
    const ends = after.events.filter((e) => e.type === "turn_end").map((e) => e.outcome);
    expect(ends).toHaveLength(1);
    expect(["completed", "cancelled"]).toContain(ends[0]);
  },
  TURN_TEST_MS,
);

test(
  "a Planner turn runs live and writes nothing, even when the model tries",
  async () => {
    server.script(
      { kind: "write_file", path: path.join(worktreeOf("p"), "nope.md"), content: "should not exist\n" },
      { kind: "text", text: "I can only plan." },
    );
    const result = await offrun("start", "--harness", HARNESS_ID, "--mode", "plan", "--wait", "--name", "p", "plan it");
    expect(result.stderr).toBe("");
    expect(result).toSucceed();
    expect(await status("p")).toBe("idle");
    await expect(fs.access(path.join(worktreeOf("p"), "nope.md"))).rejects.toThrow();
    expect(await git(worktreeOf("p"), box.env, ["status", "--porcelain"])).toBe("");
    const events = (await shown("p")).events;
    expect(events.filter((e) => e.type === "approval_request")).toEqual([]);
    expect(events.filter((e) => e.type === "turn_end").map((e) => e.outcome)).toEqual(["completed"]);
  },
  TURN_TEST_MS,
);
