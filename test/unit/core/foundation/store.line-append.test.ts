import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { agentEventSchema } from "../../../../src/core/foundation/events.js";
import { appendJsonLine, readJsonl } from "../../../../src/core/foundation/store.js";

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "offrun-append-"));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

const text = (t: string, turn = 1) => ({ type: "text", text: t, at: "2026-01-01T00:00:00Z", turn });

test("a torn last line is set aside into .torn and the next line starts clean", async () => {
  // Broke: the next append fused with the torn line, and the message it carried was lost to readers.
  const file = path.join(dir, "chat.jsonl");
  await appendJsonLine(file, text("one"));
  const torn = JSON.stringify(text("two, cut short")).slice(0, 20);
  await fs.appendFile(file, torn);
  await appendJsonLine(file, { type: "user_message", text: "the next message", at: "2026-01-01T00:00:01Z", turn: 2 });
  const read = await readJsonl(file, agentEventSchema);
  expect(read.corrupt).toEqual([]);
  expect(read.entries.map((e) => e.type)).toEqual(["text", "user_message"]);
  expect(await fs.readFile(`${file}.torn`, "utf8")).toBe(`${torn}\n`);
  expect((await fs.stat(`${file}.torn`)).mode & 0o777).toBe(0o600);
});

test("a whole last line that only lost its newline is kept in the log", async () => {
  const file = path.join(dir, "chat.jsonl");
  await fs.writeFile(file, JSON.stringify(text("one")));
  await appendJsonLine(file, text("two"));
  const read = await readJsonl(file, agentEventSchema);
  expect(read.entries.map((e) => (e.type === "text" ? e.text : e.type))).toEqual(["one", "two"]);
  await expect(fs.access(`${file}.torn`)).rejects.toThrow(/ENOENT/);
});

test("a torn line longer than one read chunk, with nothing before it, is set aside whole", async () => {
  const file = path.join(dir, "chat.jsonl");
  const torn = `{"type":"text","text":"${"x".repeat(200_000)}`;
  await fs.writeFile(file, torn);
  await appendJsonLine(file, text("after"));
  expect(await fs.readFile(file, "utf8")).toBe(`${JSON.stringify(text("after"))}\n`);
  expect(await fs.readFile(`${file}.torn`, "utf8")).toBe(`${torn}\n`);
});

test("an append that the fault point fails leaves the log as it was", async () => {
  const file = path.join(dir, "chat.jsonl");
  await appendJsonLine(file, text("one"));
  const before = await fs.readFile(file, "utf8");
  process.env.OFFRUN_FAULT = "append:ENOSPC:chat.jsonl";
  try {
    await expect(appendJsonLine(file, text("two"))).rejects.toMatchObject({ code: "ENOSPC" });
  } finally {
    delete process.env.OFFRUN_FAULT;
  }
  expect(await fs.readFile(file, "utf8")).toBe(before);
});
