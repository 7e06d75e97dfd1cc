import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { ParsedEvent } from "../../../../src/core/foundation/events.js";
import { describeToolInput } from "../../../../src/core/foundation/tool-input.js";
import { createClaudeParser } from "../../../../src/harnesses/claude/index.js";
import { createCodexParser } from "../../../../src/harnesses/codex/index.js";
import { renderEvent } from "../../../../src/cli/format.js";

// Every CLI's tool calls print as one readable line. Broke: a Codex file change, as
// recorded from Codex 0.171.0, printed `⚙ file_change {"changes":[{"path":…` where Claude Code's
// write printed its path.

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), "../../../fixtures");

function toolCalls(file: string, parser: { push(line: string): ParsedEvent[] }): ParsedEvent[] {
  return fs
    .readFileSync(path.join(FIXTURES, file), "utf8")
    .split("\n")
    .flatMap((line) => parser.push(line))
    .filter((event) => event.type === "tool_call");
}

const shown = (event: ParsedEvent) =>
  renderEvent({ ...event, at: "2026-12-08T00:00:00.000Z", turn: 1 } as Parameters<typeof renderEvent>[0]);

test("a recorded Codex file change and a recorded Claude Code write print as one line naming the file", () => {
  const [codex] = toolCalls("codex/0.171.0/write-file.jsonl", createCodexParser());
  expect(shown(codex!)).toMatch(/^ {2}⚙ file_change add \/\S+\/hello\.txt$/);
  const [claude] = toolCalls("claude/2.1.332/write-file.jsonl", createClaudeParser());
  expect(shown(claude!)).toMatch(/^ {2}⚙ Write \/\S+$/);
});

test("the command, file or URL as it is; other inputs as name: value; JSON only for what has none, cut", () => {
  expect(describeToolInput({ command: "npm test\n  -- --watch" })).toBe("npm test\n  -- --watch");
  expect(describeToolInput({ cmd: ["git", "status"] })).toBe("git status");
  expect(describeToolInput({ query: "retry backoff" })).toBe("retry backoff");
  expect(
    describeToolInput({
      changes: [
        { path: "src/a.ts", kind: "update" },
        { path: "src/b.ts", kind: "add" },
      ],
    }),
  ).toBe("update src/a.ts, add src/b.ts");
  expect(describeToolInput({ server: "docs", limit: 3, deep: true })).toBe("server: docs, limit: 3, deep: true");
  expect(describeToolInput({ nested: { a: [1, 2] } })).toBe('{"nested":{"a":[1,2]}}');
  expect(describeToolInput({ note: "x".repeat(300) }, 20)).toBe(`note: ${"x".repeat(13)}…`);
});
