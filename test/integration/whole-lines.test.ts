import fs from "node:fs/promises";
import path from "node:path";
import { makeRepo, makeSandbox, runOffrun, type Sandbox } from "../helpers/offrun.js";
import { fixture, writeStubCli } from "../helpers/stub-cli.js";
import { agentEventSchema } from "../../src/core/foundation/events.js";
import { appendJsonLine, readJsonl } from "../../src/core/foundation/store.js";
import { readDraft, writeDraft } from "../../src/core/records/draft.js";
import { itWithTmpfs, leaveFree, mountTmpfs, unmountTmpfs } from "../helpers/tmpfs.js";

// Chat logs gain whole lines or nothing: after a crash that cut the last line, and on a disk
// that fills in the middle of a write.

let box: Sandbox;
beforeAll(async () => {
  box = await makeSandbox("offrun-lines-");
});
afterAll(async () => {
  await box.cleanup();
});

test("after a crash cut the chat log's last line, the next turn's message shows in offrun show", async () => {
  // Broke: the next turn's first event was appended onto the torn line, and the user's message vanished.
  const repo = await makeRepo(path.join(box.dir, "repo"), box.env);
  const bin = await writeStubCli(path.join(box.dir, "stub", "claude"), {
    replay: fixture("claude", "2.1.332", "text-reply"),
  });
  const env = { ...box.env, OFFRUN_CLAUDE_BIN: bin };
  const offrun = (...args: string[]) => runOffrun(args, { env, cwd: repo });
  expect(await offrun("start", "--wait", "--name", "torn", "the first message")).toSucceed();
  const chat = path.join(repo, ".offrun", "chats", "torn.jsonl");
  const whole = await fs.readFile(chat, "utf8");
  // As a kill in the middle of the last write leaves it: the turn_end line without its end.
  await fs.truncate(chat, Buffer.byteLength(whole) - 12);

  expect(await offrun("send", "--wait", "torn", "the second message")).toSucceed();
  const shown = JSON.parse((await offrun("show", "--json", "torn")).stdout) as {
    events: { type: string; text?: string }[];
    corruptLines: unknown[];
  };
  const said = shown.events.filter((e) => e.type === "user_message").map((e) => e.text);
  expect(said).toEqual(["the first message", "the second message"]);
  expect(shown.corruptLines).toEqual([]);
  // The first turn's cut turn_end is set aside; the second turn's is whole.
  expect(shown.events.filter((e) => e.type === "turn_end").map((e) => (e as { turn?: number }).turn)).toEqual([2]);
  // The cut line is kept, not dropped.
  const torn = await fs.readFile(`${chat}.torn`, "utf8");
  expect(whole.trimEnd().split("\n").at(-1)).toContain(torn.trimEnd());
  expect(torn).toContain('"turn_end"');
}, 60_000);

itWithTmpfs("a line the disk has room for only part of is not left half written", async () => {
  // Broke: one write of 4096 bytes of a longer line, and a line that is not JSON in the log.
  const disk = path.join(box.dir, "small");
  await mountTmpfs(disk, "256k");
  try {
    const file = path.join(disk, "chat.jsonl");
    await appendJsonLine(file, { type: "text", text: "before", at: "2026-01-01T00:00:00Z", turn: 1 });
    const before = await fs.readFile(file, "utf8");
    await leaveFree(path.join(disk, "filler"), 4096);
    const long = { type: "text", text: "y".repeat(20_000), at: "2026-01-01T00:00:01Z", turn: 1 };
    await expect(appendJsonLine(file, long)).rejects.toMatchObject({ code: "ENOSPC" });
    expect(await fs.readFile(file, "utf8")).toBe(before);
    // Room again: the next append is whole, and nothing torn was left for it to set aside.
    await fs.rm(path.join(disk, "filler"));
    await appendJsonLine(file, long);
    const read = await readJsonl(file, agentEventSchema);
    expect(read.corrupt).toEqual([]);
    expect(read.entries).toHaveLength(2);
    await expect(fs.access(`${file}.torn`)).rejects.toThrow(/ENOENT/);
  } finally {
    await unmountTmpfs(disk);
  }
});

itWithTmpfs("a draft rewritten on a disk without room for it keeps what the user had typed", async () => {
  // Broke: the draft was truncated first and written second, so a full disk left it empty or half.
  const disk = path.join(box.dir, "drafts");
  await mountTmpfs(disk, "256k");
  try {
    await writeDraft(disk, "agent", "what I typed first");
    await leaveFree(path.join(disk, "filler"), 4096);
    await expect(writeDraft(disk, "agent", "a much longer draft ".repeat(1000))).rejects.toMatchObject({
      code: "ENOSPC",
    });
    expect(await readDraft(disk, "agent")).toBe("what I typed first\n");
  } finally {
    await unmountTmpfs(disk);
  }
});
