import { visible, visibleJson } from "../../../../src/core/foundation/visible.js";
import {
  conversationMarkdown,
  filePreviewMarkdown,
  numberedDiff,
} from "../../../../src/commands/presenters/agent-detail.js";
import { memoryChangeMarkdown } from "../../../../src/commands/presenters/memory-view.js";
import { agentRecord } from "../../../helpers/records.js";

test("a carriage return and an erase-line sequence are spelled out, so the command reads as it runs", () => {
  expect(visible("rm -rf ~ \r\x1b[2Kls")).toBe("rm -rf ~ \\r\\x1b[2Kls");
});

test("C0, DEL, C1 and bidi controls are spelled out; printable text and backslashes are left as they are", () => {
  expect(visible("\x00\x07\x08\x7f\x9b31m")).toBe("\\x00\\x07\\x08\\x7f\\x9b31m");
  expect(visible("access\u202e\u2066 level")).toBe("access\\u202e\\u2066 level");
  expect(visible("C:\\Users\\me  grep 'a\\|b'  «ünïcode» ✓")).toBe("C:\\Users\\me  grep 'a\\|b'  «ünïcode» ✓");
});

test("multi-line text keeps its line breaks (also CRLF) and tabs; one line spells them out", () => {
  expect(visible("one\r\ntwo\n\tthree")).toBe("one\r\ntwo\n\tthree");
  expect(visible("one\r\ntwo\n\tthree", "line")).toBe("one\\r\\ntwo\\n\\tthree");
});

test("the Raycast conversation and diff show an agent's control characters instead of hiding text with them", () => {
  const markdown = conversationMarkdown(agentRecord("/p", "a"), [
    {
      type: "tool_call",
      id: "t1",
      name: "Bash",
      input: { command: "rm -rf ~ \r\x1b[2Kls" },
      at: "2026-12-04T00:00:00Z",
      turn: 1,
    },
    { type: "text", text: "done\u202e.txt", at: "2026-12-04T00:00:00Z", turn: 1 },
  ]);
  expect(markdown).toContain("rm -rf ~ \\r\\x1b[2Kls");
  expect(markdown).toContain("done\\u202e.txt");
  for (const hiding of ["\r", "\x1b", "\u202e"]) expect(markdown).not.toContain(hiding);
  const diff = numberedDiff("diff --git a/x b/x\n@@ -1 +1 @@\n-old\n+new\x1b[2K\r\n");
  expect(diff).toContain("new\\x1b[2K");
  expect(diff).not.toContain("\x1b");
});

test("a changed file's preview and a memory change in Raycast spell out the control characters the agent wrote", () => {
  const file = {
    path: "notes.md",
    absolute: "/p/notes.md",
    kind: "markdown" as const,
    status: "modified" as const,
    stat: "+1 −0",
  };
  expect(filePreviewMarkdown(file, "# Notes\nsafe\u202e\x1b[8mhidden\n")).toBe("# Notes\nsafe\\u202e\\x1b[8mhidden\n");
  const memory = memoryChangeMarkdown({
    agent: "a",
    event: {
      type: "memory_change",
      id: "m1",
      file: "conventions.md",
      who: "own",
      diff: "+use pnpm\r\x1b[2Kuse npm\n",
      at: "2026-12-04T00:00:00Z",
      turn: 1,
    },
  });
  expect(memory).toContain("+use pnpm\\r\\x1b[2Kuse npm");
  expect(memory).not.toContain("\x1b");
});

test("JSON for the terminal escapes DEL, C1 and bidi controls and reads back as the same value", () => {
  const value = { text: "a\\x41\\\u009bb\u202e\u2028\u001b\u007f" };
  const json = visibleJson(value, 2);
  expect(json).toBe('{\n  "text": "a\\\\x41\\\\\\u009bb\\u202e\\u2028\\u001b\\u007f"\n}');
  expect(JSON.parse(json)).toEqual(value);
});
