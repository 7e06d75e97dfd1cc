import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as z from "zod";
import type { ParsedEvent } from "../../../../src/core/foundation/events.js";
import { ofType, turnEnd } from "../../../helpers/events.js";
import {
  createOpencodeParser,
  opencodeConfigContent,
  opencodeHarness,
  parseOpencodeAuthList,
  parseOpencodeLimitText,
} from "../../../../src/harnesses/opencode/index.js";

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), "../../../fixtures/opencode/1.18.33");

/** The parts of a fixture's .meta.json the tests read (written by test/fixtures/record-opencode.ts). */
const metaSchema = z.object({
  recordedAt: z.string(),
  steps: z.array(z.looseObject({ kind: z.string(), resetsAt: z.number().optional() })),
  turns: z.array(z.object({ argv: z.array(z.string()), exitCode: z.number().optional() })),
  requests: z.array(z.string()),
  gitStatus: z.array(z.string()),
});

function meta(scenario: string) {
  return metaSchema.parse(JSON.parse(fs.readFileSync(path.join(FIXTURES, `${scenario}.meta.json`), "utf8")));
}

function read(file: string): string {
  return fs.readFileSync(path.join(FIXTURES, file), "utf8");
}

/** Feeds a recorded stdout through a fresh parser, then ends it the way the recorded process ended. */
function replay(file: string, scenario = file, turn = 0): ParsedEvent[] {
  const recorded = meta(scenario);
  const parser = createOpencodeParser({ now: () => new Date(recorded.recordedAt) });
  const events = read(`${file}.jsonl`)
    .split("\n")
    .flatMap((line) => parser.push(line));
  const stderrTail = read(`${file}.stderr.txt`);
  events.push(...parser.finish({ exitCode: recorded.turns[turn]?.exitCode, stderrTail }));
  return events;
}

describe("the OpenCode stream parser on recorded 1.18.33 output", () => {
  test("a text reply yields the session, the text, the usage and a completed turn", () => {
    const events = replay("text");
    expect(events.map((e) => e.type)).toEqual(["session", "text", "usage", "turn_end"]);
    expect(ofType(events, "session")[0]?.sessionId).toMatch(/^ses_/);
    expect(ofType(events, "text")[0]?.text).toBe("Hello from the fake model.");
    expect(ofType(events, "usage")[0]).toEqual({
      type: "usage",
      inputTokens: 100,
      outputTokens: 12,
      cacheReadTokens: 20,
      cacheWriteTokens: 0,
      costUsd: 0,
    });
    expect(turnEnd(events)).toEqual({ type: "turn_end", outcome: "completed", exitCode: 0 });
  });

  test("the title request does not consume a scripted step", () => {
    expect(meta("text").requests).toEqual([
      "POST /v1/chat/completions -> auxiliary",
      "POST /v1/chat/completions -> text",
    ]);
  });

  test("a file written with the write tool is one tool call with its result", () => {
    const events = replay("write-file");
    expect(meta("write-file").gitStatus).toEqual(["?? hello.txt"]);
    const [call] = ofType(events, "tool_call");
    expect(call).toMatchObject({ name: "write", input: { filePath: "hello.txt", content: "hello\n" } });
    expect(ofType(events, "tool_result")).toEqual([
      { type: "tool_result", id: call?.id, output: "Wrote file successfully.", isError: false },
    ]);
    expect(ofType(events, "text").map((e) => e.text)).toEqual(["Writing hello.txt.", "Wrote hello.txt."]);
    expect(ofType(events, "usage")).toHaveLength(2); // one per step
    expect(turnEnd(events).outcome).toBe("completed");
  });

  test("a shell command that exits non-zero is reported with its output", () => {
    const events = replay("shell");
    expect(ofType(events, "tool_call")).toEqual([
      { type: "tool_call", id: expect.any(String), name: "bash", input: { command: "echo from-shell; exit 3" } },
    ]);
    expect(ofType(events, "tool_result")[0]).toMatchObject({ output: "from-shell\n", isError: false });
    expect(turnEnd(events).outcome).toBe("completed");
  });

  test("the prompt goes on stdin, so a prompt starting with a dash is no option", () => {
    expect(meta("shell").turns[0]?.argv).toEqual(["run", "--format", "json", "--agent", "build"]);
  });

  test("a Planner turn's write and shell calls are refused as denials and change nothing", () => {
    const events = replay("plan-denied");
    expect(meta("plan-denied").gitStatus).toEqual([]);
    expect(meta("plan-denied").turns[0]?.argv).toContain("plan");
    expect(ofType(events, "denial").map((d) => d.tool)).toEqual(["write", "bash"]);
    expect(ofType(events, "tool_result").every((r) => r.isError)).toBe(true);
    expect(turnEnd(events).outcome).toBe("completed");
  });

  test("a 429 after OpenCode's own five retries ends failed with the rate_limited kind", () => {
    const events = replay("rate-limit");
    expect(meta("rate-limit").requests.filter((r) => r.endsWith("rate_limit"))).toHaveLength(6);
    expect(ofType(events, "error").map((e) => e.kind)).toEqual(["rate_limited"]);
    expect(ofType(events, "limit_hit")).toEqual([]);
    expect(turnEnd(events)).toMatchObject({
      outcome: "failed",
      reason: "Rate limit reached for requests. Please try again later.",
      exitCode: 1,
    });
  });

  test("a usage limit yields one limit_hit with the reset time and a limited turn", () => {
    const events = replay("usage-limit");
    const resetsAt = meta("usage-limit").steps[0]?.resetsAt ?? 0;
    const hits = ofType(events, "limit_hit");
    expect(hits).toHaveLength(1);
    expect(hits[0]?.message).toMatch(/^You have hit your usage limit\. Your quota resets at /);
    expect(hits[0]?.resetsAt).toBe(new Date(resetsAt * 1000).toISOString());
    expect(ofType(events, "error")).toEqual([]);
    expect(turnEnd(events)).toMatchObject({ outcome: "limited", reason: hits[0]?.message, exitCode: 1 });
  });

  test("a resumed turn keeps the session id it was resumed with", () => {
    const first = replay("resume-turn1", "resume", 0);
    const second = replay("resume-turn2", "resume", 1);
    const id = ofType(first, "session")[0]?.sessionId;
    expect(meta("resume").turns[1]?.argv.slice(-2)).toEqual(["-s", id]);
    expect(ofType(second, "session")[0]?.sessionId).toBe(id);
    expect(ofType(second, "text")[0]?.text).toBe("Second answer, with the history.");
    expect(turnEnd(second).outcome).toBe("completed");
  });
});

describe("the OpenCode stream parser on broken or cut-short output", () => {
  test("a line that is not JSON becomes an unreadable_output error and parsing goes on", () => {
    const parser = createOpencodeParser();
    expect(parser.push("panic: {")).toEqual([
      { type: "error", kind: "unreadable_output", message: "OpenCode printed a line that is not JSON: panic: {" },
    ]);
    expect(parser.push('{"type":"text","sessionID":"s"}')[0]).toMatchObject({ kind: "unreadable_output" });
    expect(parser.push('{"type":"step_start","sessionID":"s1"}')).toEqual([{ type: "session", sessionId: "s1" }]);
    expect(parser.push('{"type":"session.compacted","sessionID":"s1"}')).toEqual([]);
  });

  test("a process that exits non-zero without an error event fails with the end of stderr", () => {
    const parser = createOpencodeParser();
    parser.push(read("text.jsonl").split("\n")[0]!);
    expect(parser.finish({ exitCode: 1, stderrTail: "\u001b[91mError: \u001b[0mModel not found: fake/x\n" })).toEqual([
      { type: "error", kind: "process_failed", message: "OpenCode failed: Error: Model not found: fake/x" },
      { type: "turn_end", outcome: "failed", reason: "Error: Model not found: fake/x", exitCode: 1 },
    ]);
  });

  test("exit 0 without a single step is not a completed turn", () => {
    const events = createOpencodeParser().finish({ exitCode: 0, stderrTail: "" });
    expect(turnEnd(events)).toMatchObject({ outcome: "failed", reason: "OpenCode ended without answering." });
  });

  test("a process stopped by a signal ends interrupted", () => {
    const events = createOpencodeParser().finish({ exitCode: undefined, signal: "SIGTERM", stderrTail: "" });
    expect(turnEnd(events)).toMatchObject({ outcome: "interrupted" });
  });
});

describe("OpenCode limit texts, sign-in and config", () => {
  const now = new Date("2026-11-30T10:00:00Z");

  test("the Go gateway's limit text resets after the duration it names", () => {
    const text = "Weekly usage limit reached. It will reset in 2 hours 5 minutes. To continue using this model now, …";
    expect(parseOpencodeLimitText(text, now)).toEqual({ resetsAt: "2026-11-30T12:05:00.000Z" });
    expect(parseOpencodeLimitText("Free usage exceeded, subscribe to Go", now)).toEqual({});
    expect(parseOpencodeLimitText("Rate limit reached for requests.", now)).toBeUndefined();
  });

  test("auth list names providers and methods, never secrets", () => {
    const listed = "┌  Credentials ~/.local/share/opencode/auth.json\n│\n●  OpenAI api\n│\n└  1 credentials\n";
    expect(parseOpencodeAuthList(0, listed)).toEqual({ signedIn: true, detail: "OpenAI (api)" });
    const none = "\u001b[0m┌  Credentials \u001b[90m/h/opencode/auth.json\n│\n└  0 credentials\n";
    expect(parseOpencodeAuthList(0, none)).toEqual({ signedIn: false });
    expect(parseOpencodeAuthList(1, "boom").signedIn).toBeUndefined();
  });

  test("Planner's config denies everything but reading, and keeps the user's other settings", () => {
    const content = JSON.parse(opencodeConfigContent('{"theme":"x"}', "plan", []) ?? "{}") as Record<string, unknown>;
    expect(content).toMatchObject({
      theme: "x",
      agent: { plan: { permission: { "*": "deny", read: "allow", grep: "allow" } } },
    });
    expect(JSON.stringify(content)).not.toMatch(/"(bash|edit|task)":"allow"/);
    expect(opencodeConfigContent(undefined, "build", [])).toBeUndefined();
  });

  test("an added login's turn gets both XDG homes, the quiet variables and the prompt on stdin", () => {
    const command = opencodeHarness.turnCommand({
      prompt: "-p",
      mode: "plan",
      cwd: "/w",
      binary: "/bin/opencode",
      resumeSessionId: "ses_1",
      model: "fake/m",
      loginHome: "/homes/work",
      env: { PATH: "/bin" },
    });
    expect(command.args).toEqual(["run", "--format", "json", "--agent", "plan", "-m", "fake/m", "-s", "ses_1"]);
    expect(command.input).toBe("-p");
    expect(command.env).toMatchObject({
      XDG_DATA_HOME: "/homes/work",
      XDG_CONFIG_HOME: "/homes/work/config",
      OPENCODE_DISABLE_AUTOUPDATE: "1",
      OPENCODE_CONFIG_CONTENT: expect.stringContaining('"*":"deny"'),
    });
  });
});
