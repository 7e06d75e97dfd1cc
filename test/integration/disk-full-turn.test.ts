import fs from "node:fs/promises";
import path from "node:path";
import { eventually, makeRepo, makeSandbox, runOffrun, type Sandbox } from "../helpers/offrun.js";
import { fixture, writeStubCli } from "../helpers/stub-cli.js";
import { itWithTmpfs, mountTmpfs, unmountTmpfs } from "../helpers/tmpfs.js";

// A turn whose agent fills the project's disk (a build writing artifacts), on a real small tmpfs:
// the turn ends failed saying the disk is full, what could not be written is named, the companion
// keeps running, and once there is room the next message goes on.

let box: Sandbox;
let disk: string;
beforeAll(async () => {
  box = await makeSandbox("offrun-dfull-");
});
afterAll(async () => {
  await box?.cleanup().catch(() => undefined);
  if (disk) await unmountTmpfs(disk);
});

interface Shown {
  agent: { status: string; lastError?: string };
  events: { type: string; text?: string; outcome?: string; reason?: string; message?: string; turn?: number }[];
  corruptLines: unknown[];
}

itWithTmpfs(
  "a turn that fills the project's disk ends failed saying so, names what was lost, and the next message goes on",
  async () => {
    // Broke: the appends failed one by one, the turn's end could not be written, the record stayed
    // "working", and nothing told the user the disk was full.
    disk = path.join(box.dir, "disk");
    await mountTmpfs(disk, "4m");
    const repo = await makeRepo(path.join(disk, "repo"), box.env);
    const flag = path.join(box.dir, "fill-the-disk");
    // The recorded reply with longer words: a line that fits in the chat log's last page would
    // need no new block, and a full tmpfs takes it.
    const replay = path.join(box.dir, "long-reply.jsonl");
    const recorded = await fs.readFile(fixture("claude", "2.1.332", "text-reply"), "utf8");
    await fs.writeFile(
      replay,
      recorded.split("Hello from the fake server.").join(`Hello ${"from far away ".repeat(800)}`),
    );
    const bin = await writeStubCli(path.join(box.dir, "stub", "claude"), {
      replay,
      // The agent's own command fills the disk, as a build writing artifacts would.
      // Topped up a few times: a write under way when dd ended (a record's rename) frees a page.
      before: [
        `if [ -f '${flag}' ]; then for i in 1 2 3 4 5; do dd if=/dev/zero of="$PWD/artifact-$i" bs=4k 2>/dev/null; sleep 0.05; done; fi`,
      ],
    });
    const env = { ...box.env, OFFRUN_CLAUDE_BIN: bin };
    const offrun = (...args: string[]) => runOffrun(args, { env, cwd: repo });
    const show = async () => JSON.parse((await offrun("show", "--json", "filler")).stdout) as Shown;
    expect(await offrun("start", "--wait", "--name", "filler", "the first message")).toSucceed();

    await fs.writeFile(flag, "");
    await offrun("send", "--wait", "filler", "build it all");
    const shown = await show();
    const ends = shown.events.filter((e) => e.type === "turn_end");
    expect(ends.map((e) => e.turn)).toEqual([1, 2]);
    expect(ends[1]?.outcome).toBe("failed");
    expect(ends[1]?.reason).toMatch(
      new RegExp(`^The disk holding ${repo} is full \\(\\d+ KB free\\): free space, then send a message to go on\\.$`),
    );
    expect(shown.agent.status).toBe("failed");
    expect(shown.agent.lastError).toBe(ends[1]?.reason);
    // The agent's reply is in the log or named as lost, never both; words the CLI printed after
    // Offrun stopped it (at the first write that found no room) are not the turn's, as after a stop.
    const lost = shown.events.find((e) => e.type === "notice" && e.message?.startsWith("Lost while the disk was full"));
    const named = lost?.message?.includes("the agent's words \"Hello from far away") ?? false;
    const kept = shown.events.some((e) => e.type === "text" && e.turn === 2);
    expect(named && kept).toBe(false);
    if (lost)
      expect(lost.message).toMatch(/^Lost while the disk was full \(\d+ events? of this turn could not be written\): /);
    expect(shown.corruptLines).toEqual([]);
    expect(shown.events.filter((e) => e.type === "user_message").map((e) => e.text)).toEqual([
      "the first message",
      "build it all",
    ]);
    expect((await offrun("companion", "status")).stdout).toMatch(/running/);

    // Room again: the same session goes on.
    await fs.rm(flag);
    const worktree = path.join(repo, ".worktrees", "filler");
    for (let i = 1; i <= 5; i += 1) await fs.rm(path.join(worktree, `artifact-${i}`), { force: true });
    expect(await offrun("send", "--wait", "filler", "go on")).toSucceed();
    const after = await show();
    expect(after.agent.status).toBe("idle");
    expect(after.events.filter((e) => e.type === "turn_end").at(-1)?.outcome).toBe("completed");
    expect(after.events.filter((e) => e.type === "user_message").at(-1)?.text).toBe("go on");
    expect(after.corruptLines).toEqual([]);
  },
  90_000,
);

test("when not even the reserve lets the chat log be written, the turn still ends failed and companion.log says what was lost", async () => {
  // Where no tmpfs can be mounted too: the fault point fails every append to the chat log.
  const repo = await makeRepo(path.join(box.dir, "no-room"), box.env);
  const bin = await writeStubCli(path.join(box.dir, "stub-no-room", "claude"), {
    replay: fixture("claude", "2.1.332", "text-reply"),
  });
  const oh = path.join(box.dir, "oh-no-room");
  const env = { ...box.env, OFFRUN_HOME: oh, OFFRUN_CLAUDE_BIN: bin };
  const offrun = (...args: string[]) => runOffrun(args, { env, cwd: repo });
  expect(
    await runOffrun(["companion", "start"], { env: { ...env, OFFRUN_FAULT: "append:ENOSPC:chats/" } }),
  ).toSucceed();
  await offrun("start", "--wait", "--name", "mute", "say something");
  const record = await eventually(
    async () => {
      const ls = JSON.parse((await offrun("ls", "--json")).stdout) as {
        agents: { status: string; lastError?: string }[];
      };
      return ls.agents[0]?.status === "failed" ? ls.agents[0] : undefined;
    },
    20_000,
    "the turn to end failed",
  );
  expect(record.lastError).toMatch(
    /^The disk holding .* is full \(\d+ KB free\): free space, then send a message to go on\.$/,
  );
  const log = await fs.readFile(path.join(oh, "companion.log"), "utf8");
  expect(log).toMatch(
    /state: Lost while the disk was full \(\d+ events of this turn could not be written\): your message "say something"/,
  );
  expect(log).toContain("could not be written to the chat log either");
  expect(log).toMatch(/state: The end of turn 1 could not be written/);
  expect((await offrun("companion", "status")).stdout).toMatch(/running/);
}, 60_000);
