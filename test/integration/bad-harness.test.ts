import fs from "node:fs/promises";
import path from "node:path";
import { makeRepo, makeSandbox, runOffrun, type Sandbox } from "../helpers/offrun.js";
import { fixture, writeStubCli } from "../helpers/stub-cli.js";

// A harness binary that misbehaves: the agent ends in a state the user can act on, with a
// reason that says what happened, and nothing logged is lost.

let box: Sandbox;
let counter = 0;
beforeAll(async () => {
  box = await makeSandbox("offrun-badh-");
});
afterAll(async () => {
  await box.cleanup();
});

async function setup(stub: Parameters<typeof writeStubCli>[1], config?: object) {
  counter += 1;
  const repo = await makeRepo(path.join(box.dir, `repo-${counter}`), box.env);
  if (config) {
    await fs.mkdir(path.join(repo, ".offrun"), { recursive: true });
    await fs.writeFile(path.join(repo, ".offrun", "config.json"), JSON.stringify(config));
  }
  const bin = await writeStubCli(path.join(box.dir, `stub-${counter}`, "claude"), stub);
  const env = { ...box.env, OFFRUN_HOME: path.join(box.dir, `oh-${counter}`), OFFRUN_CLAUDE_BIN: bin };
  const offrun = (...args: string[]) => runOffrun(args, { env, cwd: repo });
  const events = async (name: string) =>
    (await fs.readFile(path.join(repo, ".offrun", "chats", `${name}.jsonl`), "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; outcome?: string; reason?: string; kind?: string });
  return { offrun, events };
}

test("a CLI that exits at once with nothing on stdout fails the turn with what it said on stderr", async () => {
  const { offrun, events } = await setup({
    replay: "/dev/null",
    before: ["echo 'fatal: cannot load config' >&2", "exit 3"],
  });
  const result = await offrun("start", "--wait", "--name", "quick", "do it");
  expect(result.exitCode).toBe(1);
  const end = (await events("quick")).at(-1)!;
  expect(end).toMatchObject({ type: "turn_end", outcome: "failed" });
  expect(end.reason).toContain("fatal: cannot load config");
  const ls = JSON.parse((await offrun("ls", "--json")).stdout) as { agents: { status: string }[] };
  expect(ls.agents[0]!.status).toBe("failed");
});

test("a CLI that prints only garbage ends failed, with each bad line kept as an error event", async () => {
  const { offrun, events } = await setup({
    replay: "/dev/null",
    before: ["printf '\\001\\002 not json\\n{{{\\n<html>502</html>\\n'"],
  });
  const result = await offrun("start", "--wait", "--name", "noise", "do it");
  expect(result.exitCode).toBe(1);
  const logged = await events("noise");
  expect(logged.filter((e) => e.type === "error" && e.kind === "unreadable_output")).toHaveLength(3);
  expect(logged.at(-1)).toMatchObject({ type: "turn_end", outcome: "failed" });
});

test("a CLI that hangs without output is ended by the idle watchdog, and send can try again", async () => {
  const { offrun, events } = await setup(
    {
      replay: fixture("claude", "2.1.332", "text-reply"),
      before: ['[ -f "$0.hung" ] || { touch "$0.hung"; exec sleep 600; }'],
    },
    { idleTimeoutMinutes: 0.03 },
  );
  const hung = await offrun("start", "--wait", "--name", "silent", "do it");
  expect(hung.exitCode).toBe(1);
  expect(hung.stdout).toContain("printed nothing");
  const again = await offrun("send", "--wait", "silent", "try again");
  expect(again).toSucceed();
  expect((await events("silent")).filter((e) => e.type === "turn_end").map((e) => e.outcome)).toEqual([
    "failed",
    "completed",
  ]);
});
