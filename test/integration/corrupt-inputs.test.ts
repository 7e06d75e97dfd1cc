import fs from "node:fs/promises";
import path from "node:path";
import { eventually, makeRepo, makeSandbox, runOffrun, type Sandbox } from "../helpers/offrun.js";
import { fixture, writeStubCli } from "../helpers/stub-cli.js";

// Each state file corrupt, empty, cut short or of the wrong shape: the companion starts, names the
// file in companion.log and in `offrun`'s output, and the other project's agent goes on. (Corrupt
// projects.json, harnesses.json and quota cache are in corrupt-state.test.ts.)

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

// The file, what is written over it, and the `offrun` command that reads it (and so must name it).
const CASES: [string, (s: Setup) => string, string, string[]][] = [
  ["accounts.json, empty", (s) => path.join(s.oh, "accounts.json"), "", ["accounts"]],
  // Broke: `offrun ls` (and every listing that asks the hosts) failed outright on it.
  ["hosts.json, cut short", (s) => path.join(s.oh, "hosts.json"), '{"version": 1, "hosts": [{"name": "dev', ["ls"]],
  ["an agent record, empty", (s) => path.join(s.hurt, ".offrun", "agents", "hurt.json"), "", ["ls"]],
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
    const file = fileOf({ oh, hurt: hurt!, other: other! });
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, content);

    expect(await offrun(other!, "companion", "start")).toSucceed();
    const log = path.join(oh, "companion.log");
    await eventually(
      async () => ((await fs.readFile(log, "utf8")).includes(file) ? true : undefined),
      20_000,
      `companion.log to name ${file}`,
    );
    const shown = await offrun(hurt!, ...reader);
    expect(shown.exitCode).toBe(0);
    expect(`${shown.stdout}\n${shown.stderr}`).toContain(file);
    expect(await offrun(other!, "send", "--wait", "other", "again")).toSucceed();
    expect((await offrun(other!, "companion", "status")).stdout).toMatch(/running/);
    await offrun(other!, "companion", "stop");
  },
  120_000,
);
