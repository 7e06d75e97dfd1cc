import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createCodexParser } from "../../../../src/harnesses/codex/parser.js";
import { refusedWritesInRollout } from "../../../../src/harnesses/codex/refused-writes.js";
import { ofType } from "../../../helpers/events.js";

// Codex 0.171.0 reports no refused write in `exec --json`; the parser finds them in the thread's
// rollout, else (for patches) on stderr.

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), "../../../fixtures/codex/0.171.0");
const read = (file: string) => fs.readFileSync(path.join(FIXTURES, file), "utf8");

const THREAD = "01a22ad5-1517-7f72-9a1f-e215e4a074ed";
const STREAM = [
  JSON.stringify({ type: "thread.started", thread_id: THREAD }),
  JSON.stringify({ type: "turn.started" }),
  JSON.stringify({ type: "item.completed", item: { id: "item_0", type: "agent_message", text: "done" } }),
  JSON.stringify({ type: "turn.completed", usage: { input_tokens: 1, output_tokens: 1 } }),
];

test("a refused patch and a refused shell write in a rollout are denials naming the file and the command", () => {
  const denials = refusedWritesInRollout(read("rollout-refused-writes.jsonl").split("\n"));
  expect(denials).toEqual([
    {
      type: "denial",
      tool: "apply_patch",
      input: {
        path: "/work/repo/evil.ts",
        patch: "*** Begin Patch\n*** Add File: /work/repo/evil.ts\n+hacked\n*** End Patch\n",
      },
    },
    { type: "denial", tool: "exec_command", input: { command: "echo hacked > /work/repo/evil2.ts" } },
  ]);
});

test("tool calls whose output is not a sandbox refusal are not denials", () => {
  const dir = path.join(FIXTURES, "quota-home", "sessions", "2026", "11", "30");
  const withCalls = fs
    .readdirSync(dir)
    .map((name) => fs.readFileSync(path.join(dir, name), "utf8"))
    .find((text) => text.includes('"function_call_output"'));
  expect(withCalls).toBeDefined();
  expect(refusedWritesInRollout(withCalls!.split("\n"))).toEqual([]);
});

test("with the turn's home, finish() reads the thread's rollout and reports its refusals after the turn_end", () => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "offrun-codex-home-"));
  try {
    const day = path.join(home, "sessions", "2026", "11", "30");
    fs.mkdirSync(day, { recursive: true });
    fs.writeFileSync(
      path.join(day, `rollout-2026-11-30T05-02-17-${THREAD}.jsonl`),
      read("rollout-refused-writes.jsonl"),
    );
    const parser = createCodexParser({ home });
    const events = STREAM.flatMap((line) => parser.push(line));
    // The stderr line is ignored when the rollout answers: the same patch must not count twice.
    const stderrTail = read("plan-write-rejected.stderr.txt");
    events.push(...parser.finish({ exitCode: 0, stderrTail }));
    expect(events.map((e) => e.type)).toEqual(["session", "text", "usage", "turn_end", "denial", "denial"]);
    expect(ofType(events, "denial").map((d) => d.tool)).toEqual(["apply_patch", "exec_command"]);
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
});

test("without a readable rollout, a patch refused on stderr is still a denial", () => {
  const parser = createCodexParser({ home: path.join(os.tmpdir(), "offrun-no-such-codex-home") });
  const events = read("plan-write-rejected.jsonl")
    .split("\n")
    .flatMap((line) => parser.push(line));
  // Anywhere in stderr, not only among its last lines (which give a failure its reason).
  const stderrTail = `${read("plan-write-rejected.stderr.txt")}${"WARN codex_core: noise\n".repeat(1_000)}`;
  events.push(...parser.finish({ exitCode: 0, stderrTail }));
  expect(ofType(events, "denial")).toEqual([
    {
      type: "denial",
      tool: "apply_patch",
      input: { reason: "patch rejected: writing is blocked by read-only sandbox; rejected by user approval settings" },
    },
  ]);
  expect(events.at(-2)?.type).toBe("turn_end");
});
