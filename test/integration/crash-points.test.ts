import fs from "node:fs/promises";
import path from "node:path";
import { agentEventSchema } from "../../src/core/foundation/events.js";
import { readJsonl } from "../../src/core/foundation/store.js";
import { eventually, git, makeRepo, makeSandbox, runOffrun, type Sandbox } from "../helpers/offrun.js";
import { fixture, writeStubCli } from "../helpers/stub-cli.js";

// A small fixed crash matrix: the companion is killed (SIGKILL, at a named fault point) during an
// agent's start and first turn, started again, and the invariants are checked: every chat line
// parses, no agent is left working, no branch or worktree lacks its record, and the next message
// goes on (or, when the start never got far enough to keep the agent, the name starts again).

const CASES = [
  ["append", 1],
  ["append", 2],
  ["append", 4],
  ["atomic", 1],
  ["atomic", 2],
  ["atomic", 3],
  ["atomic", 5],
] as const;

let box: Sandbox;
const measured: string[] = [];
beforeAll(async () => {
  box = await makeSandbox("offrun-crash-");
});
afterAll(async () => {
  // The figures of the matrix, for the note: one line per kill.
  if (measured.length > 0) process.stdout.write(`crash matrix:\n${measured.join("\n")}\n`);
  await box.cleanup();
});

const exists = (file: string) =>
  fs.access(file).then(
    () => true,
    () => false,
  );

test.each(CASES)(
  "killed at %s hit %d, the companion recovers and the agent goes on",
  async (point, hit) => {
    const id = `${point}-${hit}`;
    const repo = await makeRepo(path.join(box.dir, id), box.env);
    const bin = await writeStubCli(path.join(box.dir, `${id}-stub`, "claude"), {
      replay: fixture("claude", "2.1.332", "text-reply"),
    });
    const env = { ...box.env, OFFRUN_HOME: path.join(box.dir, `${id}-oh`), OFFRUN_CLAUDE_BIN: bin };
    const offrun = (args: string[], extra: NodeJS.ProcessEnv = {}) =>
      runOffrun(args, { env: { ...env, ...extra }, cwd: repo });
    // Only the companion carries the fault: the CLI talking to it is not killed.
    const fault = point === "append" ? `append:KILL@${hit}:chats/` : `atomic:KILL@${hit}:.offrun/agents/`;
    expect(await offrun(["companion", "start"], { OFFRUN_FAULT: fault })).toSucceed();
    await offrun(["start", "--wait", "--name", "crash", "the first message"]);
    await eventually(
      async () => ((await offrun(["companion", "status"])).exitCode === 3 ? true : undefined),
      20_000,
      "the companion to be gone",
    );

    const restarted = Date.now();
    expect(await offrun(["companion", "start"])).toSucceed();
    const record = path.join(repo, ".offrun", "agents", "crash.json");
    await eventually(
      async () => {
        const ls = JSON.parse((await offrun(["ls", "--json"])).stdout) as { agents: { status: string }[] };
        return ls.agents.every((a) => a.status !== "working") ? true : undefined;
      },
      20_000,
      "no agent left working",
    );
    const recoveryMs = Date.now() - restarted;

    const chat = await readJsonl(path.join(repo, ".offrun", "chats", "crash.jsonl"), agentEventSchema);
    expect(chat.corrupt).toEqual([]);
    // No branch or worktree without its record.
    const branches = (await git(repo, box.env, ["branch", "--list", "offrun/*"])).trim();
    const folders = await fs.readdir(path.join(repo, ".worktrees")).catch(() => []);
    const kept = await exists(record);
    const stranded = (branches !== "" && !kept ? 1 : 0) + folders.filter(() => !kept).length;
    expect(stranded).toBe(0);

    const next = kept
      ? await offrun(["send", "--wait", "crash", "after the crash"])
      : await offrun(["start", "--wait", "--name", "crash", "after the crash"]);
    expect(next).toSucceed();
    const shown = JSON.parse((await offrun(["show", "--json", "crash"])).stdout) as {
      events: { type: string; text?: string }[];
      corruptLines: unknown[];
    };
    expect(shown.events.filter((e) => e.type === "user_message").at(-1)?.text).toBe("after the crash");
    expect(shown.corruptLines).toEqual([]);
    measured.push(
      `  ${id}: record kept ${kept}, corrupt lines ${chat.corrupt.length}, stranded ${stranded}, recovery ${recoveryMs} ms, next message ok`,
    );
  },
  90_000,
);
