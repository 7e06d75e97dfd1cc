import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as z from "zod";
import type { ParsedEvent } from "../../../../src/core/foundation/events.js";
import { ofType, turnEnd } from "../../../helpers/events.js";
import {
  createPiParser,
  findPiSession,
  parsePiLimitText,
  parsePiModelList,
  piHarness,
  piSessionFolder,
} from "../../../../src/harnesses/pi/index.js";

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), "../../../fixtures/pi/0.73.1");

/** The parts of a fixture's .meta.json the tests read (written by test/fixtures/record-pi.ts). */
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
  const parser = createPiParser({ now: () => new Date(recorded.recordedAt) });
  const events = read(`${file}.jsonl`)
    .split("\n")
    .flatMap((line) => parser.push(line));
  events.push(...parser.finish({ exitCode: recorded.turns[turn]?.exitCode, stderrTail: read(`${file}.stderr.txt`) }));
  return events;
}

describe("the Pi stream parser on recorded 0.73.1 output", () => {
  test("a text reply yields the session, the text, the usage and a completed turn", () => {
    const events = replay("text");
    expect(events.map((e) => e.type)).toEqual(["session", "text", "usage", "turn_end"]);
    expect(ofType(events, "session")[0]?.sessionId).toMatch(/^[0-9a-f-]{36}$/);
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

  test("a file written with the write tool is one tool call with its result", () => {
    const events = replay("write-file");
    expect(meta("write-file").gitStatus).toEqual(["?? hello.txt"]);
    const calls = ofType(events, "tool_call");
    expect(calls).toHaveLength(1); // message_end and tool_execution_start name the same call
    expect(calls[0]).toMatchObject({ name: "write", input: { path: "hello.txt", content: "hello\n" } });
    expect(ofType(events, "tool_result")).toEqual([
      { type: "tool_result", id: calls[0]?.id, output: "Successfully wrote 6 bytes to hello.txt", isError: false },
    ]);
    expect(ofType(events, "text").map((e) => e.text)).toEqual(["Writing hello.txt.", "Wrote hello.txt."]);
    expect(turnEnd(events).outcome).toBe("completed");
  });

  test("a shell command that exits non-zero is an error result with its output", () => {
    const events = replay("shell");
    expect(ofType(events, "tool_call")[0]).toMatchObject({
      name: "bash",
      input: { command: "echo from-shell; exit 3" },
    });
    const [result] = ofType(events, "tool_result");
    expect(result?.isError).toBe(true);
    expect(result?.output).toContain("from-shell");
    expect(turnEnd(events).outcome).toBe("completed");
  });

  test("the prompt goes on stdin, so a prompt starting with a dash reaches Pi as the prompt", () => {
    expect(meta("shell").turns[0]?.argv).toEqual(["-p", "--mode", "json"]);
    expect(read("shell.jsonl")).toContain('"text":"-Run a command (the prompt starts with a dash)"');
  });

  test("a Planner turn has only read tools: write and bash are denials and nothing changes", () => {
    const events = replay("plan-denied");
    expect(meta("plan-denied").turns[0]?.argv).toEqual(["-p", "--mode", "json", "--tools", "read,grep,find,ls"]);
    expect(meta("plan-denied").gitStatus).toEqual([]);
    expect(ofType(events, "denial")).toEqual([
      { type: "denial", tool: "write", input: expect.objectContaining({ content: "nope\n" }) },
      { type: "denial", tool: "bash", input: { command: "echo hacked > hacked.txt" } },
    ]);
    expect(turnEnd(events).outcome).toBe("completed");
  });

  test("a 429 with retries off ends failed with the rate_limited kind, although Pi exits 0", () => {
    const events = replay("rate-limit");
    expect(meta("rate-limit").turns[0]?.exitCode).toBe(0);
    expect(ofType(events, "error").map((e) => e.kind)).toEqual(["rate_limited"]);
    expect(turnEnd(events)).toMatchObject({
      outcome: "failed",
      reason: "429 Rate limit reached for requests. Please try again later.",
    });
  });

  test("Pi's own retries are retry events, and the turn fails when they run out", () => {
    const events = replay("rate-limit-retry");
    expect(ofType(events, "retry").map((e) => e.attempt)).toEqual([1, 2]);
    expect(ofType(events, "error").map((e) => e.kind)).toEqual(["rate_limited"]);
    expect(turnEnd(events).outcome).toBe("failed");
  });

  test("a usage limit yields one limit_hit with the reset time and a limited turn", () => {
    const events = replay("usage-limit");
    const resetsAt = meta("usage-limit").steps[0]?.resetsAt ?? 0;
    const hits = ofType(events, "limit_hit");
    expect(hits).toHaveLength(1);
    expect(hits[0]?.message).toMatch(/^429 You have hit your usage limit\./);
    expect(hits[0]?.resetsAt).toBe(new Date(resetsAt * 1000).toISOString());
    expect(ofType(events, "error")).toEqual([]);
    expect(turnEnd(events)).toMatchObject({ outcome: "limited", reason: hits[0]?.message });
  });

  test("a resumed turn keeps the session id it was resumed with", () => {
    const id = ofType(replay("resume-turn1", "resume", 0), "session")[0]?.sessionId;
    const second = replay("resume-turn2", "resume", 1);
    expect(meta("resume").turns[1]?.argv).toEqual(["-p", "--mode", "json", "--session", id]);
    expect(ofType(second, "session")[0]?.sessionId).toBe(id);
    expect(ofType(second, "text")[0]?.text).toBe("Second answer, with the history.");
    expect(turnEnd(second).outcome).toBe("completed");
  });
});

describe("the Pi stream parser on broken or cut-short output", () => {
  test("a line that is not JSON becomes an unreadable_output error and parsing goes on", () => {
    const parser = createPiParser();
    expect(parser.push("Segmentation fault {")).toEqual([
      { type: "error", kind: "unreadable_output", message: "Pi printed a line that is not JSON: Segmentation fault {" },
    ]);
    expect(parser.push('{"type":"session"}')[0]).toMatchObject({ kind: "unreadable_output" });
    expect(parser.push('{"type":"queue_update","steering":[]}')).toEqual([]);
    expect(parser.push('{"type":"session","id":"s1"}')).toEqual([{ type: "session", sessionId: "s1" }]);
  });

  test("an unknown option exits 1 and fails with Pi's own words", () => {
    const events = createPiParser().finish({ exitCode: 1, stderrTail: "Error: Unknown option: -x\n" });
    expect(turnEnd(events)).toMatchObject({ outcome: "failed", reason: "Error: Unknown option: -x", exitCode: 1 });
  });

  test("a stream cut short before any answer is a failure, not a completed turn", () => {
    const parser = createPiParser();
    read("text.jsonl")
      .split("\n")
      .slice(0, 4)
      .forEach((line) => parser.push(line));
    expect(turnEnd(parser.finish({ exitCode: 0, stderrTail: "" })).outcome).toBe("failed");
  });

  test("a process stopped by a signal ends interrupted", () => {
    const events = createPiParser().finish({ exitCode: undefined, signal: "SIGKILL", stderrTail: "" });
    expect(turnEnd(events)).toMatchObject({ outcome: "interrupted" });
  });
});

describe("Pi limit texts, sign-in, sessions and argv", () => {
  test("the ChatGPT subscription's limit text resets after the minutes it names", () => {
    const now = new Date("2026-11-30T10:00:00Z");
    const text = "You have hit your ChatGPT usage limit (plus plan). Try again in ~42 min.";
    expect(parsePiLimitText(text, now)).toEqual({ resetsAt: "2026-11-30T10:42:00.000Z" });
    expect(parsePiLimitText("429 Rate limit reached", now)).toBeUndefined();
  });

  test("--list-models tells which providers the home is signed in to", () => {
    const table = "provider      model   context\nopenai-codex  gpt-5.5  272K\nanthropic  claude-x  200K\n";
    expect(parsePiModelList(0, table)).toEqual({ signedIn: true, detail: "openai-codex, anthropic" });
    expect(parsePiModelList(0, "No models available. Use /login to log into a provider").signedIn).toBe(false);
  });

  test("a session is found in the folder of its cwd", async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "offrun-pi-home-"));
    const folder = path.join(home, "sessions", piSessionFolder("/tmp/a/b"));
    expect(path.basename(folder)).toBe("--tmp-a-b--");
    fs.mkdirSync(folder, { recursive: true });
    fs.writeFileSync(path.join(folder, "2026-11-30T02-45-52-542Z_abc.jsonl"), "{}\n");
    expect(await findPiSession(home, "abc", "/tmp/a/b")).toBe(path.join(folder, "2026-11-30T02-45-52-542Z_abc.jsonl"));
    expect(await findPiSession(home, "nope", "/tmp/a/b")).toBeUndefined();
    fs.rmSync(home, { recursive: true, force: true });
  });

  test("an added login's turn moves PI_CODING_AGENT_DIR and sends the prompt on stdin", () => {
    const command = piHarness.turnCommand({
      prompt: "-p",
      mode: "build",
      cwd: "/w",
      binary: "/bin/pi",
      model: "fake/m",
      loginHome: "/homes/work",
      env: { PATH: "/bin" },
    });
    expect(command.args).toEqual(["-p", "--mode", "json", "--model", "fake/m"]);
    expect(command.input).toBe("-p");
    expect(command.env).toEqual({ PATH: "/bin", PI_CODING_AGENT_DIR: "/homes/work" });
  });
});
