import fs from "node:fs/promises";
import path from "node:path";
import { makeRepo, makeSandbox, runOffrun, type Sandbox } from "../helpers/offrun.js";
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
      before: [`if [ -f '${flag}' ]; then dd if=/dev/zero of="$PWD/artifact" bs=4k 2>/dev/null; fi`],
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
    const lost = shown.events.find((e) => e.type === "notice" && e.message?.startsWith("Lost while the disk was full"));
    expect(lost?.message).toMatch(/the agent's words "/);
    expect(shown.corruptLines).toEqual([]);
    expect(shown.events.filter((e) => e.type === "user_message").map((e) => e.text)).toEqual([
      "the first message",
      "build it all",
    ]);
    expect((await offrun("companion", "status")).stdout).toMatch(/running/);

    // Room again: the same session goes on.
    await fs.rm(flag);
    const worktree = path.join(repo, ".worktrees", "filler");
    await fs.rm(path.join(worktree, "artifact"));
    expect(await offrun("send", "--wait", "filler", "go on")).toSucceed();
    const after = await show();
    expect(after.agent.status).toBe("idle");
    expect(after.events.filter((e) => e.type === "turn_end").at(-1)?.outcome).toBe("completed");
    expect(after.events.filter((e) => e.type === "user_message").at(-1)?.text).toBe("go on");
    expect(after.corruptLines).toEqual([]);
  },
  90_000,
);
