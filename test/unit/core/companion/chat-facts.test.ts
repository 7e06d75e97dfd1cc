import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pendingFromLog } from "../../../../src/core/agents/approvals.js";
import { ChatFactsBook } from "../../../../src/core/companion/chat-facts.js";
import { parseEventLine, type AgentEvent } from "../../../../src/core/foundation/events.js";
import { fileLines } from "../../../../src/core/foundation/lines.js";
import { agentRecord } from "../../../helpers/records.js";

// A host's copy of an agent's log may hold hundreds of MB: at first sight it is read as a stream
// (fileLines) and folded event by event, to the facts a whole read gave (pendingFromLog).

const at = "2026-12-07T10:00:00.000Z";
const events: AgentEvent[] = [
  { type: "text", at, turn: 1, text: "first turn" },
  { type: "approval_request", at, turn: 1, id: "1.1", tool: "Bash", input: {} },
  { type: "turn_start", at, turn: 2, harness: "claude", account: "default", mode: "build", resume: true },
  { type: "approval_request", at, turn: 2, id: "2.1", tool: "Bash", input: {}, text: "Bash: ls" },
  { type: "question", at, turn: 2, id: "2.2", text: "Which one?" },
  { type: "approval_request", at, turn: 2, id: "2.3", tool: "Edit", input: {} },
  { type: "decision", at, turn: 2, id: "2.3", decision: "allow", by: "user" },
  // U+2028 is no line end: readline would cut this line in two.
  { type: "text", at, turn: 2, text: "last\u2028words ✓" },
];

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "offrun-facts-"));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

async function* parsed(file: string, size: number): AsyncGenerator<AgentEvent> {
  for await (const line of fileLines(file, size)) {
    const event = parseEventLine(line);
    if (event) yield event;
  }
}

test("a copy read as a stream gives the facts a whole read gave: last words, and what waits in the current turn", async () => {
  const record = agentRecord("/srv/app", "a1", { status: "needs-you", turns: 2 });
  // Padding lines past the stream's 64 KB chunks, so lines and a multi-byte character straddle them.
  const padding = Array.from({ length: 3000 }, (_, i) =>
    JSON.stringify({ ...events[0], text: `é${"x".repeat(i % 97)}` }),
  );
  const lines = [...padding, ...events.map((e) => JSON.stringify(e))];
  const file = path.join(dir, "copy.jsonl");
  await fs.writeFile(file, lines.join("\n") + "\n");
  const book = new ChatFactsBook();
  await book.learnFrom("a1", record, parsed(file, (await fs.stat(file)).size));
  expect(book.get("a1")).toEqual({
    lastWords: "last\u2028words ✓",
    pending: pendingFromLog(record, events).map((e) =>
      e.type === "approval_request"
        ? { id: e.id, kind: "approval", tool: e.tool, text: e.text ?? e.tool }
        : { id: (e as { id: string }).id, kind: "question", text: (e as { text: string }).text },
    ),
  });
  expect(book.get("a1")?.pending.map((p) => p.id)).toEqual(["2.1", "2.2"]);
});

test("a copy is read only up to the size given: a line after it is not read", async () => {
  const file = path.join(dir, "copy.jsonl");
  const first = JSON.stringify(events[0]) + "\n";
  await fs.writeFile(file, first + JSON.stringify(events[7]) + "\n");
  const read: string[] = [];
  for await (const line of fileLines(file, Buffer.byteLength(first))) read.push(line);
  expect(read).toEqual([first.trimEnd()]);
});

test("an agent that needs no one has nothing pending, whatever its log asked", async () => {
  const record = agentRecord("/srv/app", "a1", { status: "idle", turns: 2 });
  const file = path.join(dir, "copy.jsonl");
  await fs.writeFile(file, events.map((e) => JSON.stringify(e)).join("\n") + "\n");
  const book = new ChatFactsBook();
  await book.learnFrom("a1", record, parsed(file, (await fs.stat(file)).size));
  expect(book.get("a1")).toEqual({ lastWords: "last\u2028words ✓", pending: [] });
});
