import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as z from "zod";
import type { ParsedEvent } from "../../../../src/core/foundation/events.js";
import {
  createGeminiParser,
  geminiHarness,
  geminiTurnArgs,
  parseGeminiLimitText,
} from "../../../../src/harnesses/gemini/index.js";
import { ofType, turnEnd } from "../../../helpers/events.js";

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), "../../../fixtures/gemini/0.61.0");

/** The parts of a fixture's .meta.json the tests read (written by test/fixtures/record-gemini.ts). */
const metaSchema = z.object({
  cwd: z.string(),
  turns: z.array(z.object({ argv: z.array(z.string()), exitCode: z.number().optional(), stderr: z.string() })),
  filesInRepo: z.array(z.string()),
  requests: z.array(z.object({ path: z.string(), answeredWith: z.string() })),
});

function meta(scenario: string) {
  return metaSchema.parse(JSON.parse(fs.readFileSync(path.join(FIXTURES, `${scenario}.meta.json`), "utf8")));
}

const NOW = new Date("2026-11-30T12:00:00Z");

/** Feeds a recorded stdout through a fresh parser, then ends it the way the recorded process ended. */
function replay(file: string, scenario = file, turn = 0): ParsedEvent[] {
  const parser = createGeminiParser({ now: () => NOW });
  const lines = fs.readFileSync(path.join(FIXTURES, `${file}.jsonl`), "utf8").split("\n");
  const events = lines.flatMap((line) => parser.push(line));
  const recorded = meta(scenario).turns[turn];
  events.push(...parser.finish({ exitCode: recorded?.exitCode, stderrTail: recorded?.stderr ?? "" }));
  return events;
}

function argValue(argv: string[], flag: string): string | undefined {
  const index = argv.indexOf(flag);
  return index < 0 ? undefined : argv[index + 1];
}

describe("the Gemini stream parser on recorded 0.61.0 output", () => {
  test("a text reply yields the session chosen up front, the text, the usage and a completed turn", () => {
    const events = replay("text");
    expect(ofType(events, "session")).toEqual([
      { type: "session", sessionId: argValue(meta("text").turns[0]!.argv, "--session-id"), model: "gemini-2.5-flash" },
    ]);
    expect(ofType(events, "text").map((e) => e.text)).toEqual(["Hello from the fake model."]);
    expect(ofType(events, "usage")).toEqual([{ type: "usage", inputTokens: 12, outputTokens: 5, cacheReadTokens: 0 }]);
    expect(ofType(events, "error")).toEqual([]);
    expect(turnEnd(events).outcome).toBe("completed");
  });

  test("a Build write yields a write_file call with file_path, its result, and the file exists", () => {
    const events = replay("write-file");
    const recorded = meta("write-file");
    const call = ofType(events, "tool_call")[0]!;
    expect(call).toMatchObject({ name: "write_file", input: { file_path: path.join(recorded.cwd, "hello.txt") } });
    expect(ofType(events, "tool_result")).toEqual([{ type: "tool_result", id: call.id, output: "", isError: false }]);
    expect(ofType(events, "text").map((e) => e.text)).toEqual(["Writing hello.txt.", "Wrote hello.txt."]);
    expect(ofType(events, "denial")).toEqual([]);
    expect(recorded.filesInRepo).toEqual(["hello.txt"]);
    expect(turnEnd(events).outcome).toBe("completed");
  });

  test("a shell call in Build mode is refused (the tool is not registered) and logged as a denial", () => {
    const events = replay("shell-refused");
    expect(ofType(events, "tool_result")[0]).toMatchObject({ isError: true });
    expect(ofType(events, "tool_result")[0]!.output).toContain('Tool "run_shell_command" not found');
    expect(ofType(events, "denial")).toEqual([
      { type: "denial", tool: "run_shell_command", input: { command: "echo shell-ran > shell.txt" } },
    ]);
    expect(meta("shell-refused").filesInRepo).toEqual([]);
    // The prompt started with "-" and still arrived as the prompt.
    expect(meta("shell-refused").turns[0]!.argv[0]).toBe("--prompt=-Run a command (the prompt starts with a dash).");
    expect(turnEnd(events).outcome).toBe("completed");
  });

  test("a write in plan mode is refused by policy, logged as a denial, and nothing is written", () => {
    const events = replay("plan-write-refused");
    expect(ofType(events, "tool_result")[0]!.output).toContain("must be within the designated plans directory");
    expect(ofType(events, "denial")[0]).toMatchObject({ tool: "write_file" });
    expect(meta("plan-write-refused").filesInRepo).toEqual([]);
    expect(turnEnd(events).outcome).toBe("completed");
  });

  test("a 429 that outlives its one attempt fails the turn as rate limited (exit 173)", () => {
    const events = replay("rate-limit");
    expect(ofType(events, "error").map((e) => e.kind)).toEqual(["rate_limited"]);
    expect(ofType(events, "limit_hit")).toEqual([]);
    expect(turnEnd(events)).toMatchObject({ outcome: "failed" });
    expect(meta("rate-limit").turns[0]!.exitCode).toBe(173);
  });

  test("the daily quota ends the turn limited, resetting at the next midnight in Los Angeles", () => {
    const events = replay("usage-limit");
    const hit = ofType(events, "limit_hit")[0]!;
    expect(hit.message).toContain("You have exhausted your daily quota on this model.");
    expect(hit).toMatchObject({ window: "daily", resetsAt: "2026-12-01T08:00:00.000Z" });
    expect(turnEnd(events)).toMatchObject({ outcome: "limited" });
    expect(meta("usage-limit").turns[0]!.exitCode).toBe(173);
  });

  test("a resumed turn names the same session, passed to -r", () => {
    const first = replay("resume-turn1", "resume", 0);
    const second = replay("resume-turn2", "resume", 1);
    const id = ofType(first, "session")[0]!.sessionId;
    expect(ofType(second, "session")[0]!.sessionId).toBe(id);
    expect(argValue(meta("resume").turns[1]!.argv, "-r")).toBe(id);
    expect(ofType(second, "text").map((e) => e.text)).toEqual(["Second answer."]);
    expect(turnEnd(second).outcome).toBe("completed");
  });

  test("a home without GEMINI_API_KEY fails as not logged in (exit 41, nothing on stdout)", () => {
    const events = replay("not-logged-in");
    expect(ofType(events, "error").map((e) => e.kind)).toEqual(["not_logged_in"]);
    expect(turnEnd(events)).toMatchObject({ outcome: "failed", exitCode: 41 });
  });
});

describe("the Gemini stream parser on lines no recording has", () => {
  test("a corrupt line is reported as unreadable and the turn still ends once", () => {
    const parser = createGeminiParser();
    const events = [
      ...parser.push('{"type":"init","session_id":"s1","model":"m"}'),
      ...parser.push("{not json"),
      ...parser.push('{"type":"tool_use"}'),
      ...parser.push('{"type":"some_future_event","x":1}'),
      ...parser.push("[1,2]"),
      ...parser.finish({ exitCode: 1, stderrTail: "boom" }),
    ];
    expect(ofType(events, "error").map((e) => e.kind)).toEqual([
      "unreadable_output",
      "unreadable_output",
      "unreadable_output",
      "process_failed",
    ]);
    expect(turnEnd(events)).toMatchObject({ outcome: "failed", reason: "boom", exitCode: 1 });
  });

  test("assistant deltas are joined into one text; a warning error is a notice; a signal interrupts", () => {
    const parser = createGeminiParser();
    const events = [
      ...parser.push('{"type":"message","role":"assistant","content":"Hel","delta":true}'),
      ...parser.push('{"type":"message","role":"assistant","content":"lo","delta":true}'),
      ...parser.push('{"type":"error","severity":"warning","message":"Loop detected, stopping execution"}'),
      ...parser.finish({ exitCode: undefined, signal: "SIGTERM", stderrTail: "" }),
    ];
    expect(ofType(events, "text").map((e) => e.text)).toEqual(["Hello"]);
    expect(ofType(events, "notice")[0]).toMatchObject({ level: "warning" });
    expect(turnEnd(events).outcome).toBe("interrupted");
  });
});

describe("parseGeminiLimitText", () => {
  test("reads the interactive form with its zone label as the next such time", () => {
    const text =
      "Usage limit reached for gemini-2.5-pro.\nAccess resets at 4:05 PM PDT.\n/stats model for usage details";
    expect(parseGeminiLimitText(text, NOW)).toEqual({
      model: "gemini-2.5-pro",
      resetsAt: "2026-11-30T23:05:00.000Z",
      zone: "PDT",
    });
    // Already past today in that zone: tomorrow.
    expect(parseGeminiLimitText("Usage limit reached for m. Access resets at 3:05 AM PST.", NOW)).toMatchObject({
      resetsAt: "2026-12-01T11:05:00.000Z",
      zone: "PST",
    });
  });

  test("reads numeric GMT offsets and refuses zone names it cannot place", () => {
    expect(parseGeminiLimitText("Usage limit reached for m. Access resets at 9:30 PM GMT+5:30.", NOW)).toEqual({
      model: "m",
      resetsAt: "2026-11-30T16:00:00.000Z",
      zone: "GMT+5:30",
    });
    expect(parseGeminiLimitText("Usage limit reached for m. Access resets at 9:30 PM XYZT.", NOW)).toEqual({
      model: "m",
    });
  });

  test("without a reset line the limit has no instant", () => {
    expect(parseGeminiLimitText("Usage limit reached for all Pro models.", NOW)).toEqual({ model: "all Pro models" });
  });

  test("the daily quota resets at midnight Pacific, across the DST change", () => {
    expect(parseGeminiLimitText("You have exhausted your daily quota on this model.", NOW)).toEqual({
      window: "daily",
      resetsAt: "2026-12-01T08:00:00.000Z",
      zone: "America/Los_Angeles",
    });
    expect(
      parseGeminiLimitText("You have exhausted your daily quota on this model.", new Date("2026-07-01T12:00:00Z")),
    ).toMatchObject({
      resetsAt: "2026-07-02T07:00:00.000Z",
    });
  });

  test("a terminal quota with a long suggested retry resets then; a short one is no limit", () => {
    const long = "[API Error: Quota exceeded.\nSuggested retry after 7200s.]";
    expect(parseGeminiLimitText(long, NOW)).toEqual({ resetsAt: "2026-11-30T14:00:00.000Z" });
    expect(parseGeminiLimitText("Quota exceeded.\nSuggested retry after 60s.", NOW)).toBeUndefined();
    expect(parseGeminiLimitText("Resource has been exhausted (e.g. check quota).", NOW)).toBeUndefined();
  });
});

describe("argv", () => {
  const base = { prompt: "-x", mode: "build" as const };

  test("gemini: first turn chooses the session id; resume passes -r; Planner uses plan mode; stdin leaves --prompt= empty", () => {
    // --skip-trust only for a repository the user trusted in Offrun (README.md#trust).
    expect(geminiTurnArgs({ ...base, newSessionId: "u1", model: "gemini-2.5-flash" })).toEqual([
      "--prompt=-x",
      "-o",
      "stream-json",
      "--approval-mode",
      "auto_edit",
      "-m",
      "gemini-2.5-flash",
      "--session-id",
      "u1",
    ]);
    expect(
      geminiTurnArgs({ ...base, mode: "plan", resumeSessionId: "s1", addDirs: ["/m"], workspaceTrusted: true }),
    ).toEqual([
      "--prompt=-x",
      "-o",
      "stream-json",
      "--approval-mode",
      "plan",
      "--skip-trust",
      "-r",
      "s1",
      "--include-directories",
      "/m",
    ]);
    const command = geminiHarness.turnCommand({
      ...base,
      cwd: "/w",
      binary: "gemini",
      env: {},
      loginHome: "/h",
      promptViaStdin: true,
    });
    expect(command.args[0]).toBe("--prompt=");
    expect(command).toMatchObject({ input: "-x", env: { GEMINI_CLI_HOME: "/h" } });
  });
});
