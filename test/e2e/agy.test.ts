import fs from "node:fs/promises";
import path from "node:path";
import { agyScript, FAKE_AGY, type AgyScript } from "../helpers/agy-env.js";
import { git, makeRepo, makeSandbox, runOffrun, type Sandbox } from "../helpers/offrun.js";

// agy does not install here: the fake agy (test/fake-agy, replaying cited public records of the
// real CLI) stands in, driven through the real `offrun` CLI and companion. Two logins of it, each
// its own HOME; the Default login is signed out, so nothing runs there by accident.

let box: Sandbox;
let repo: string;
let env: NodeJS.ProcessEnv;
const script: Record<"alpha" | "beta", AgyScript> = {} as never;
const homes = { alpha: "", beta: "" };

beforeAll(async () => {
  box = await makeSandbox("offrun-e2e-agy-");
  repo = await makeRepo(path.join(box.dir, "repo"), box.env, { "README.md": "# demo\n" });
  const signedOut = await agyScript(path.join(box.dir, "agy-default.json"), { signedIn: false });
  env = {
    ...box.env,
    OFFRUN_HOME: box.offrunHome,
    OFFRUN_AGY_BIN: FAKE_AGY,
    FAKE_AGY_SCRIPT: signedOut.file,
    PATH: [path.dirname(process.execPath), box.env.PATH ?? "/usr/bin:/bin"].join(path.delimiter),
  };
  for (const label of ["alpha", "beta"] as const) {
    script[label] = await agyScript(path.join(box.dir, `agy-${label}.json`));
    homes[label] = path.join(box.dir, `agy-home-${label}`);
    await fs.mkdir(homes[label], { recursive: true });
    const added = await offrun(
      "logins",
      "add",
      "agy",
      label,
      "--home",
      homes[label],
      "--no-login",
      "--env",
      `FAKE_AGY_SCRIPT=${script[label].file}`,
    );
    expect(added).toSucceed();
  }
});

afterAll(async () => {
  await runOffrun(["companion", "stop"], { env }).catch(() => undefined);
  await box.cleanup();
});

const offrun = (...args: string[]) => runOffrun(args, { env, cwd: repo });

interface Shown {
  agent: { account: string; sessionId?: string };
  events: {
    type: string;
    outcome?: string;
    tool?: string;
    window?: string;
    resetsAt?: string;
    from?: string;
    to?: string;
  }[];
}
const shown = async (name: string) => JSON.parse((await offrun("show", name, "--json")).stdout) as Shown;
const turnsOf = async (s: AgyScript) =>
  (await s.calls()).filter((c) => c.call !== "models" && !c.argv.includes("--version"));

test("offrun harnesses states agy's minimum version and that it was not run here", async () => {
  const listed = await offrun("harnesses");
  expect(listed.stdout).toContain("requires:  agy 1.1.12 or later (from the vendor's published source, not run here)");
  const json = JSON.parse((await offrun("harnesses", "--json")).stdout) as {
    id: string;
    interactiveApprovals: boolean;
  }[];
  expect(json.find((h) => h.id === "agy")).toMatchObject({ interactiveApprovals: false });
});

test("a Build turn writes in its worktree through agy's write_to_file, in accept-edits mode", async () => {
  const worktree = path.join(repo, ".worktrees", "notes");
  await script.alpha.set([
    {
      scenario: "write-file",
      path: path.join(worktree, "notes.md"),
      content: "agy was here\n",
      text: "Wrote notes.md.",
    },
  ]);
  const started = await offrun(
    "start",
    "--harness",
    "agy",
    "--login",
    "alpha",
    "--wait",
    "--name",
    "notes",
    "write notes.md",
  );
  expect(started).toSucceed();
  expect(started.stdout).toContain("Wrote notes.md.");
  expect(await fs.readFile(path.join(worktree, "notes.md"), "utf8")).toBe("agy was here\n");
  const argv = (await turnsOf(script.alpha)).at(-1)!.argv;
  expect(argv).toEqual(
    expect.arrayContaining(["--mode", "accept-edits", "--disable-slash-commands", "--output-format", "stream-json"]),
  );
  const ends = (await shown("notes")).events.filter((e) => e.type === "turn_end").map((e) => e.outcome);
  expect(ends).toEqual(["completed"]);
});

// A sandboxed agy turn, with Google's hosts open; only agy's own state folder of
// the login's home is written, and its settings (permissions.allow) stay read-only.
test("a sandboxed agy turn runs inside the sandbox, writing only its state folder, with Google's hosts open", async () => {
  // A login of its own, whose fake script (and the calls the fake logs beside it) lives in agy's
  // state folder: inside the sandbox nothing else of the test's folders may be written.
  const home = path.join(box.dir, "agy-home-boxed");
  const state = path.join(home, ".gemini", "antigravity-cli");
  await fs.mkdir(state, { recursive: true });
  const boxed = await agyScript(path.join(state, "fake-script.json"));
  const login = [
    "logins",
    "add",
    "agy",
    "boxed",
    "--home",
    home,
    "--no-login",
    "--env",
    `FAKE_AGY_SCRIPT=${boxed.file}`,
  ];
  expect(await offrun(...login)).toSucceed();
  const worktree = path.join(repo, ".worktrees", "boxed");
  await boxed.set([
    { scenario: "write-file", path: path.join(worktree, "boxed.md"), content: "inside\n", text: "Wrote boxed.md." },
  ]);
  const started = await offrun(
    "start",
    "--harness",
    "agy",
    "--login",
    "boxed",
    "--sandbox",
    "--wait",
    "--name",
    "boxed",
    "write",
  );
  expect(started).toSucceed();
  expect(await fs.readFile(path.join(worktree, "boxed.md"), "utf8")).toBe("inside\n");
  const folder = path.join(box.offrunHome, "sandbox");
  const [project] = await fs.readdir(folder);
  const policy = JSON.parse(await fs.readFile(path.join(folder, project!, "boxed", "settings.json"), "utf8")) as {
    network: { allowedDomains: string[] };
    filesystem: { allowWrite: string[]; denyWrite: string[] };
  };
  expect(policy.network.allowedDomains).toEqual(
    expect.arrayContaining(["cloudcode-pa.googleapis.com", "oauth2.googleapis.com"]),
  );
  expect(policy.filesystem.allowWrite).toContain(state);
  expect(policy.filesystem.allowWrite).not.toContain(home);
  expect(policy.filesystem.denyWrite).toContain(path.join(state, ".agents"));
  // The failover test below moves from alpha to beta: no third login to pick instead.
  // Its agent "boxed" is done with it: removed anyway (--force), its home kept for that agent.
  expect(await offrun("logins", "rm", "agy", "boxed", "--force")).toSucceed();
});

test("send resumes the same agy conversation, which holds the first message", async () => {
  await script.alpha.set([{ scenario: "text", text: "It says agy was here." }]);
  const sent = await offrun("send", "--wait", "notes", "what does notes.md say?");
  expect(sent).toSucceed();
  expect(sent.stdout).toContain("It says agy was here.");
  const { agent } = await shown("notes");
  const last = (await turnsOf(script.alpha)).at(-1)!;
  expect(last.argv).toEqual(expect.arrayContaining(["--conversation", agent.sessionId!]));
  expect(last.history!.join("\n")).toContain("write notes.md");
});

test("a Planner turn runs --mode plan: agy refuses the write, the refusal is a denial, the worktree is clean", async () => {
  const worktree = path.join(repo, ".worktrees", "readonly");
  await script.alpha.set([
    { scenario: "write-file", path: path.join(worktree, "nope.md"), content: "no\n", text: "Approve the plan first." },
  ]);
  const result = await offrun(
    "start",
    "--harness",
    "agy",
    "--login",
    "alpha",
    "--mode",
    "plan",
    "--wait",
    "--name",
    "readonly",
    "plan it",
  );
  expect(result).toSucceed();
  await expect(fs.access(path.join(worktree, "nope.md"))).rejects.toThrow();
  expect(await git(worktree, box.env, ["status", "--porcelain"])).toBe("");
  const argv = (await turnsOf(script.alpha)).at(-1)!.argv;
  expect(argv).toEqual(expect.arrayContaining(["--mode", "plan"]));
  expect(argv).not.toContain("--disable-slash-commands");
  expect((await shown("readonly")).events.filter((e) => e.type === "denial").map((e) => e.tool)).toEqual([
    "write_to_file",
  ]);
});

test("a command agy auto-denies in headless mode shows as a denial", async () => {
  await script.alpha.set([{ scenario: "denied", command: "npm install" }]);
  const result = await offrun(
    "start",
    "--harness",
    "agy",
    "--login",
    "alpha",
    "--wait",
    "--name",
    "denied",
    "install deps",
  );
  expect(result).toSucceed();
  expect((await shown("denied")).events.filter((e) => e.type === "denial").map((e) => e.tool)).toEqual(["run_command"]);
});

// Last: afterwards alpha counts as limited until its reset.
test("a quota limit ends alpha's turn with its reset, and the conversation moves to beta, which finishes", async () => {
  const first = "read the README (task 5e1d)";
  await script.alpha.set([{ scenario: "text", text: "It is a demo." }]);
  expect(await offrun("start", "--harness", "agy", "--login", "alpha", "--wait", "--name", "lim", first)).toSucceed();
  await script.alpha.set([{ scenario: "quota-retrying", resetsIn: "2h39m52s", retrySeconds: 1 }]);
  await script.beta.set([{ scenario: "text", text: "Finished on beta." }]);
  const started = Date.now();
  const result = await offrun("send", "--wait", "lim", "now summarise it");
  expect(result).toSucceed();
  expect(result.stdout).toContain("Finished on beta.");
  const { agent, events } = await shown("lim");
  expect(agent.account).toBe("beta");
  const hit = events.find((e) => e.type === "limit_hit")!;
  expect(hit.window).toBe("five_hour");
  const resetsIn = Date.parse(hit.resetsAt!) - started;
  expect(resetsIn).toBeGreaterThan((2 * 3600 + 39 * 60) * 1000);
  expect(resetsIn).toBeLessThan((2 * 3600 + 41 * 60) * 1000 + (Date.now() - started));
  expect(events.find((e) => e.type === "account_switch")).toMatchObject({ from: "alpha", to: "beta" });
  // beta resumed alpha's conversation from the copied database and its WAL: the first message is in it.
  const resumed = (await turnsOf(script.beta)).at(-1)!;
  expect(resumed.home).toBe(homes.beta);
  expect(resumed.argv).toEqual(expect.arrayContaining(["--conversation", agent.sessionId!]));
  expect(resumed.history!.join("\n")).toContain(first);
  const conv = path.join(homes.beta, ".gemini", "antigravity-cli", "conversations");
  expect(await fs.readdir(conv)).toEqual(
    expect.arrayContaining([`${agent.sessionId}.db`, `${agent.sessionId}.db-wal`]),
  );
});
