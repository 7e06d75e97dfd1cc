import fs from "node:fs/promises";
import path from "node:path";
import { eventually, makeRepo, makeSandbox, runOffrun, type Sandbox } from "../helpers/offrun.js";
import { fixture, writeStubCli } from "../helpers/stub-cli.js";

// Each state file corrupt, empty, cut short or of the wrong shape: the companion starts, names the
// file in companion.log and in `offrun`'s output, and the other project's agent goes on. (A command
// finding projects.json, harnesses.json or the quota cache damaged itself: corrupt-state.test.ts.)

let box: Sandbox;
beforeAll(async () => {
  box = await makeSandbox("offrun-inputs-");
});
afterAll(async () => {
  await box.cleanup();
});

interface Setup {
  oh: string;
  /** The project whose file is damaged (for files of a project), and one that must go on. */
  hurt: string;
  other: string;
}

// The file, what is written over it, and an `offrun` command that must name it (the companion may
// have repaired the file since: then from what it kept for the faces, problem-register.ts).
const CASES: [string, (s: Setup) => string, string | ((s: Setup) => string), string[]][] = [
  ["accounts.json, empty", (s) => path.join(s.oh, "accounts.json"), "", ["logins"]],
  // Broke: `offrun ls` (and every listing that asks the hosts) failed outright on it.
  ["hosts.json, cut short", (s) => path.join(s.oh, "hosts.json"), '{"version": 1, "hosts": [{"name": "dev', ["ls"]],
  ["an agent record, empty", (s) => path.join(s.hurt, ".offrun", "agents", "hurt.json"), "", ["ls"]],
  // Broke: once the companion had rebuilt it, `offrun ls` said nothing of it (companion.log only).
  [
    "projects.json, wrong shape",
    (s) => path.join(s.oh, "projects.json"),
    (s) => JSON.stringify({ version: 1, projects: [{ root: s.hurt }, { root: s.other }] }),
    ["--json", "ls"],
  ],
  // Broke: `offrun accounts` said nothing of it once the companion had started the cache afresh.
  [
    "the quota cache, wrong shape",
    (s) => path.join(s.oh, "cache", "quota.json"),
    '{"version": 1, "accounts": []}',
    ["ls"],
  ],
  // Broke: nothing named it; the companion wrote over it unsaid.
  ["state.json, cut short", (s) => path.join(s.oh, "state.json"), '{"version": 1, "companion": {"pid', ["ls"]],
  // Broke: `offrun harnesses` exited 1 on it instead of listing the built-in CLIs.
  ["harnesses.json, not JSON", (s) => path.join(s.oh, "harnesses.json"), "harnesses: none", ["harnesses"]],
  // Broke: companion.log never named it (nothing read it until the next start of an agent).
  [
    "a project's config.json, wrong shape",
    (s) => path.join(s.hurt, ".offrun", "config.json"),
    '{"copyFiles": "all"}',
    ["harnesses"],
  ],
];

test.each(CASES)(
  "%s: the companion starts, names the file, and the other project goes on",
  async (id, fileOf, content, reader) => {
    const dir = path.join(box.dir, id.replace(/\W+/g, "-"));
    const oh = path.join(dir, "oh");
    const bin = await writeStubCli(path.join(dir, "stub", "claude"), {
      replay: fixture("claude", "2.1.332", "text-reply"),
    });
    const env = { ...box.env, OFFRUN_HOME: oh, OFFRUN_CLAUDE_BIN: bin };
    const [hurt, other] = await Promise.all(["hurt", "other"].map((name) => makeRepo(path.join(dir, name), box.env)));
    const offrun = (cwd: string, ...args: string[]) => runOffrun(args, { env, cwd });
    expect(await offrun(hurt!, "start", "--wait", "--name", "hurt", "hello")).toSucceed();
    expect(await offrun(other!, "start", "--wait", "--name", "other", "hello")).toSucceed();
    expect(await offrun(other!, "companion", "stop")).toSucceed();
    const setup = { oh, hurt: hurt!, other: other! };
    const file = fileOf(setup);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, typeof content === "string" ? content : content(setup));
    // Damaged a while ago (a file changed a moment ago may be a write still under way: project.ts).
    const aMinuteAgo = new Date(Date.now() - 60_000);
    await fs.utimes(file, aMinuteAgo, aMinuteAgo);

    expect(await offrun(other!, "companion", "start")).toSucceed();
    const log = path.join(oh, "companion.log");
    await eventually(
      async () => ((await fs.readFile(log, "utf8")).includes(file) ? true : undefined),
      20_000,
      `companion.log to name ${file}`,
    );
    // The companion keeps the problem a moment after its log line.
    await eventually(
      async () => {
        const shown = await offrun(hurt!, ...reader);
        expect(shown.exitCode).toBe(0);
        return `${shown.stdout}\n${shown.stderr}`.includes(file) ? true : undefined;
      },
      10_000,
      `offrun ${reader.join(" ")} to name ${file}`,
    );
    expect(await offrun(other!, "send", "--wait", "other", "again")).toSucceed();
    expect((await offrun(other!, "companion", "status")).stdout).toMatch(/running/);
    await offrun(other!, "companion", "stop");
  },
  120_000,
);

// Broke (a branch that had the companion list its problems in state.json): the warning went on
// after the file was fixed, until the companion restarted. Only the companion reads config.json
// at its start, so `offrun ls` can name it only from what the companion kept.
test("a file fixed by hand is no longer named, without a companion restart", async () => {
  const dir = path.join(box.dir, "fixed-by-hand");
  const oh = path.join(dir, "oh");
  const bin = await writeStubCli(path.join(dir, "stub", "claude"), {
    replay: fixture("claude", "2.1.332", "text-reply"),
  });
  const env = { ...box.env, OFFRUN_HOME: oh, OFFRUN_CLAUDE_BIN: bin };
  const repo = await makeRepo(path.join(dir, "repo"), box.env);
  const offrun = (...args: string[]) => runOffrun(args, { env, cwd: repo });
  expect(await offrun("start", "--wait", "--name", "a", "hello")).toSucceed();
  expect(await offrun("companion", "stop")).toSucceed();
  const config = path.join(repo, ".offrun", "config.json");
  await fs.writeFile(config, '{"copyFiles": "all"}');
  expect(await offrun("companion", "start")).toSucceed();

  await eventually(
    async () => ((await offrun("ls")).stderr.includes(config) ? true : undefined),
    20_000,
    `offrun ls to name ${config}`,
  );
  await fs.writeFile(config, "{}\n");
  const after = await offrun("ls");
  expect(after).toSucceed();
  expect(after.stderr).not.toContain(config);
  await offrun("companion", "stop");
}, 120_000);
