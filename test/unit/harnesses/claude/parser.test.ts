import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as z from "zod";
import type { ParsedEvent } from "../../../../src/core/foundation/events.js";
import { createClaudeParser, parseClaudeLimitText } from "../../../../src/harnesses/claude/index.js";
import { ofType, turnEnd } from "../../../helpers/events.js";

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), "../../../fixtures/claude/2.1.332");

/** The parts of a fixture's .meta.json the tests read (written by test/fixtures/record-claude.ts). */
const metaSchema = z.object({
  cwd: z.string(),
  quota: z
    .object({ fiveHourResetsAt: z.number(), weeklyResetsAt: z.number(), weeklyUsedPercent: z.number() })
    .optional(),
  turns: z.array(z.object({ argv: z.array(z.string()), exitCode: z.number().optional(), stderr: z.string() })),
  filesInRepo: z.array(z.string()),
  requests: z.array(z.object({ answeredWith: z.string(), messageRoles: z.array(z.string()).optional() })),
});

function meta(scenario: string) {
  return metaSchema.parse(JSON.parse(fs.readFileSync(path.join(FIXTURES, `${scenario}.meta.json`), "utf8")));
}

/** Feeds a recorded stdout through a fresh parser, then ends it the way the recorded process ended. */
function replay(file: string, scenario = file, turn = 0): ParsedEvent[] {
  const parser = createClaudeParser();
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

describe("the Claude stream parser on recorded 2.1.332 output", () => {
  test("a text reply yields the session, the text, the usage and a completed turn", () => {
    const events = replay("text-reply");
    const argv = meta("text-reply").turns[0]!.argv;
    expect(ofType(events, "session")[0]).toEqual({
      type: "session",
      sessionId: argValue(argv, "--session-id"),
      model: "claude-opus-5-5",
    });
    expect(ofType(events, "text").map((e) => e.text)).toEqual(["Hello from the fake server."]);
    const usage = ofType(events, "usage")[0]!;
    expect(usage).toMatchObject({ inputTokens: 12, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 });
    expect(usage.costUsd).toBeGreaterThan(0);
    expect(ofType(events, "error")).toEqual([]);
    expect(turnEnd(events).outcome).toBe("completed");
  });

  test("a write turn yields a Write tool call with file_path, its result, and the file exists in cwd", () => {
    const events = replay("write-file");
    const recorded = meta("write-file");
    const call = ofType(events, "tool_call")[0]!;
    expect(call.name).toBe("Write");
    expect(call.input).toEqual({ file_path: path.join(recorded.cwd, "hello.txt"), content: "hello\n" });
    const result = ofType(events, "tool_result")[0]!;
    expect(result).toMatchObject({ id: call.id, isError: false });
    expect(result.output).toContain("File created successfully");
    expect(ofType(events, "text").map((e) => e.text)).toEqual(["Writing hello.txt.", "Wrote hello.txt."]);
    expect(recorded.filesInRepo).toContain("hello.txt");
    expect(turnEnd(events).outcome).toBe("completed");
  });

  test("a write in plan mode yields a failed tool result and a denial, and the turn still completes", () => {
    const events = replay("plan-denied-write");
    const result = ofType(events, "tool_result")[0]!;
    expect(result.isError).toBe(true);
    expect(result.output).toContain("plan mode");
    const denial = ofType(events, "denial")[0]!;
    expect(denial.tool).toBe("Write");
    expect(denial.input).toMatchObject({ file_path: path.join(meta("plan-denied-write").cwd, "plan.txt") });
    expect(meta("plan-denied-write").filesInRepo).toEqual([]);
    expect(turnEnd(events).outcome).toBe("completed");
  });

  test("a shell command yields a Bash tool call with its command", () => {
    const events = replay("shell-command");
    expect(ofType(events, "tool_call")[0]).toMatchObject({
      name: "Bash",
      input: { command: "echo shell-ran > shell.txt" },
    });
    expect(ofType(events, "tool_result")[0]?.isError).toBe(false);
    expect(turnEnd(events).outcome).toBe("completed");
  });

  test("a transient 429 without retries yields a rate_limited error and a failed turn", () => {
    const events = replay("rate-limit");
    expect(ofType(events, "error")).toEqual([
      expect.objectContaining({ kind: "rate_limited", message: expect.stringContaining("429") }),
    ]);
    expect(ofType(events, "limit_hit")).toEqual([]);
    expect(ofType(events, "text")).toEqual([]);
    const end = turnEnd(events);
    expect(end.outcome).toBe("failed");
    expect(end.reason).toContain("429");
  });

  test("a 429 the CLI retries yields a retry event and then the answer", () => {
    const events = replay("rate-limit-retry");
    expect(ofType(events, "retry")[0]).toMatchObject({ attempt: 1, message: expect.stringContaining("HTTP 429") });
    expect(ofType(events, "text").map((e) => e.text)).toEqual(["Answered after a retry."]);
    expect(turnEnd(events).outcome).toBe("completed");
  });

  test("a subscriber's usage limit yields quota windows, one limit_hit with the reset time, and a limited turn", () => {
    const events = replay("usage-limit");
    const quota = meta("usage-limit").quota!;
    const windows = ofType(events, "quota")[0]!.windows;
    expect(windows).toEqual([
      expect.objectContaining({
        kind: "five_hour",
        usedPercent: 100,
        status: "rejected",
        resetsAt: new Date(quota.fiveHourResetsAt * 1000).toISOString(),
        source: "claude-stream",
      }),
      expect.objectContaining({
        kind: "seven_day",
        usedPercent: quota.weeklyUsedPercent,
        status: "allowed",
        resetsAt: new Date(quota.weeklyResetsAt * 1000).toISOString(),
      }),
    ]);
    const hits = ofType(events, "limit_hit");
    expect(hits).toHaveLength(1);
    expect(hits[0]).toMatchObject({
      window: "five_hour",
      resetsAt: new Date(quota.fiveHourResetsAt * 1000).toISOString(),
    });
    expect(ofType(events, "text")).toEqual([]);
    const end = turnEnd(events);
    expect(end.outcome).toBe("limited");
    expect(end.reason).toMatch(/^You've hit your 5-hour limit · resets \d{1,2}:\d{2}(am|pm) \(UTC\)$/);
  });

  test("a subscriber close to the limit gets a warning window with utilization as a percentage", () => {
    const events = replay("quota-warning");
    const windows = ofType(events, "quota")[0]!.windows;
    expect(windows.find((w) => w.kind === "five_hour")).toMatchObject({ usedPercent: 95, status: "warning" });
    expect(windows.find((w) => w.kind === "seven_day")).toMatchObject({ usedPercent: 17, status: "allowed" });
    expect(ofType(events, "limit_hit")).toEqual([]);
    expect(turnEnd(events).outcome).toBe("completed");
  });

  test("a resumed turn keeps the session id and the server receives the first turn's history", () => {
    const recorded = meta("resume");
    const first = replay("resume-turn1", "resume", 0);
    const second = replay("resume-turn2", "resume", 1);
    const firstId = ofType(first, "session")[0]!.sessionId;
    expect(ofType(second, "session")[0]!.sessionId).toBe(firstId);
    expect(argValue(recorded.turns[1]!.argv, "--resume")).toBe(firstId);
    expect(ofType(second, "text").map((e) => e.text)).toEqual(["Second answer."]);
    expect(recorded.requests[1]!.messageRoles).toEqual(["user", "system", "assistant", "user"]);
    expect(turnEnd(second).outcome).toBe("completed");
  });

  test("a run without credentials yields a not_logged_in error that says to run claude, and a failed turn", () => {
    const events = replay("not-logged-in");
    expect(ofType(events, "error")).toEqual([
      expect.objectContaining({ kind: "not_logged_in", message: expect.stringContaining("Run `claude`") }),
    ]);
    expect(ofType(events, "text")).toEqual([]);
    const end = turnEnd(events);
    expect(end.outcome).toBe("failed");
    expect(end.reason).toContain("Not logged in");
  });

  test("resuming a session the CLI does not have yields a not_found error naming it, and a failed turn that says why", () => {
    const events = replay("resume-missing");
    const session = argValue(meta("resume-missing").turns[0]!.argv, "--resume")!;
    expect(ofType(events, "error")).toEqual([
      {
        type: "error",
        kind: "not_found",
        message: `Claude Code has no conversation ${session} in this login's home to resume.`,
      },
    ]);
    const end = turnEnd(events);
    expect(end.outcome).toBe("failed");
    expect(end.reason).toBe(`No conversation found with session ID: ${session}`);
  });
});

describe("the Claude stream parser on damaged or cut-off output", () => {
  test("a line that is not JSON becomes an unreadable_output error quoting it, and parsing goes on", () => {
    const parser = createClaudeParser();
    expect(parser.push('{"type":"assistant","message":{"content":[{"type":"te')).toEqual([
      expect.objectContaining({
        type: "error",
        kind: "unreadable_output",
        message: expect.stringContaining('{"type":"assistant"'),
      }),
    ]);
    expect(parser.push('{"type":"assistant","message":{"content":[{"type":"text","text":"still here"}]}}')).toEqual([
      { type: "text", text: "still here" },
    ]);
  });

  test("a known line in an unexpected shape is reported, an unknown line type is skipped", () => {
    const parser = createClaudeParser();
    expect(parser.push('{"type":"result","is_error":"maybe"}')[0]).toMatchObject({ kind: "unreadable_output" });
    expect(parser.push('{"type":"stream_event","event":{}}')).toEqual([]);
  });

  test("a stream that ends without a result fails with the end of stderr", () => {
    const parser = createClaudeParser();
    expect(parser.finish({ exitCode: 137, stderrTail: "line one\nKilled\n" })).toEqual([
      {
        type: "turn_end",
        outcome: "failed",
        reason: "Claude exited with code 137 without a result: line one\nKilled",
        exitCode: 137,
      },
    ]);
  });

  test("stderr that says to log in becomes a not_logged_in error", () => {
    const events = createClaudeParser().finish({ exitCode: 1, stderrTail: "Invalid API key · Please run /login" });
    expect(events[0]).toMatchObject({ type: "error", kind: "not_logged_in" });
    expect(events[1]).toMatchObject({ type: "turn_end", outcome: "failed" });
  });

  test("finish adds nothing after the stream's own result", () => {
    const parser = createClaudeParser();
    parser.push('{"type":"result","subtype":"success","is_error":false,"result":"ok"}');
    expect(parser.finish({ exitCode: 0, stderrTail: "" })).toEqual([]);
  });

  test("a result that says success but is_error true is a failed turn", () => {
    const parser = createClaudeParser();
    const events = parser.push('{"type":"result","subtype":"success","is_error":true,"result":"API Error: 500"}');
    expect(events.at(-1)).toEqual({ type: "turn_end", outcome: "failed", reason: "API Error: 500" });
  });
});

describe("parseClaudeLimitText", () => {
  const now = new Date("2026-11-30T01:45:00Z");

  test("the legacy pipe form reads the reset from epoch seconds", () => {
    expect(parseClaudeLimitText("Claude AI usage limit reached|1767225600", now)).toEqual({
      severity: "limit",
      resetsAt: "2026-01-01T00:00:00.000Z",
    });
  });

  test("a time without a zone is the machine's local time, the next time it comes round", () => {
    const expected = new Date(now);
    expected.setHours(21, 0, 0, 0);
    if (expected <= now) expected.setDate(expected.getDate() + 1);
    expect(parseClaudeLimitText("5-hour limit reached ∙ resets 9pm", now)).toEqual({
      severity: "limit",
      window: "five_hour",
      resetsAt: expected.toISOString(),
    });
  });

  test("an hour in a named zone later today resolves to today", () => {
    // 01:45Z is 09:45 in Kuala Lumpur (UTC+8).
    expect(parseClaudeLimitText("You've hit your limit · resets 4pm (Asia/Kuala_Lumpur)", now)).toEqual({
      severity: "limit",
      window: undefined,
      resetsAt: "2026-11-30T08:00:00.000Z",
    });
  });

  test("a session limit in Los Angeles resolves in that zone's standard time", () => {
    // 01:45Z is 17:45 on Nov 29 in Los Angeles (UTC-8); the next 00:50 there is 08:50Z.
    expect(parseClaudeLimitText("You've hit your session limit · resets 12:50am (America/Los_Angeles)", now)).toEqual({
      severity: "limit",
      window: "five_hour",
      resetsAt: "2026-11-30T08:50:00.000Z",
    });
  });

  test("the same text in summer uses daylight saving time", () => {
    const summer = new Date("2026-07-01T12:00:00Z"); // 05:00 PDT (UTC-7)
    expect(
      parseClaudeLimitText("You've hit your session limit · resets 12:50am (America/Los_Angeles)", summer)?.resetsAt,
    ).toBe("2026-07-02T07:50:00.000Z");
  });

  // Broke in CI: a reset 12 s away, read 20 s later, printed the minute just begun; it became tomorrow.
  test("a reset in the minute that is still running is this minute, not tomorrow", () => {
    const late = new Date("2026-11-30T01:45:20Z");
    expect(parseClaudeLimitText("You've hit your 5-hour limit · resets 1:45am (UTC)", late)?.resetsAt).toBe(
      "2026-11-30T01:45:00.000Z",
    );
  });

  test("a reset time already past today rolls to the next day", () => {
    const later = new Date("2026-11-30T04:00:00Z");
    expect(parseClaudeLimitText("You've hit your 5-hour limit · resets 3:19am (UTC)", later)?.resetsAt).toBe(
      "2026-12-01T03:19:00.000Z",
    );
    expect(parseClaudeLimitText("You've hit your 5-hour limit · resets 3:19am (UTC)", now)?.resetsAt).toBe(
      "2026-11-30T03:19:00.000Z",
    );
  });

  test("a date without a year that has passed this year is next year's", () => {
    // Asia/Calcutta is the old name of Asia/Kolkata (UTC+5:30).
    expect(parseClaudeLimitText("You've hit your 5-hour limit · resets Jan 30, 11:30am (Asia/Calcutta)", now)).toEqual({
      severity: "limit",
      window: "five_hour",
      resetsAt: "2027-01-30T06:00:00.000Z",
    });
  });

  test("a date with a year, as 2.1.332 prints resets more than a day away, is taken as written", () => {
    expect(
      parseClaudeLimitText("You've hit your 5-hour limit · resets Mar 17, 2030, 5:46pm (UTC)", now)?.resetsAt,
    ).toBe("2030-03-17T17:46:00.000Z");
  });

  test("a usage warning is a warning with the percentage used, not a limit", () => {
    expect(parseClaudeLimitText("You've used 90% of your session limit · resets 3pm (UTC)", now)).toEqual({
      severity: "warning",
      usedPercent: 90,
      window: "five_hour",
      resetsAt: "2026-11-30T15:00:00.000Z",
    });
  });

  test("the weekly and model windows are named, and a trailing note does not hide the reset", () => {
    expect(parseClaudeLimitText("You've hit your weekly limit · resets 4pm (UTC) · progress saved", now)).toEqual({
      severity: "limit",
      window: "seven_day",
      resetsAt: "2026-11-30T16:00:00.000Z",
    });
    expect(parseClaudeLimitText("You’ve hit your Opus limit · resets 4pm (UTC)", now)?.window).toBe("seven_day_opus");
  });

  test("an unknown zone keeps the limit but gives no reset time", () => {
    expect(parseClaudeLimitText("You've hit your limit · resets 4pm (Mars/Olympus_Mons)", now)).toEqual({
      severity: "limit",
      window: undefined,
      resetsAt: undefined,
    });
  });

  test("ordinary text is not a limit", () => {
    expect(parseClaudeLimitText("I reached the limit of what the tests cover.", now)).toBeUndefined();
    expect(parseClaudeLimitText("Hello from the fake server.", now)).toBeUndefined();
  });
});
