import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as z from "zod";
import type { ParsedEvent } from "../../../../src/core/foundation/events.js";
import { ofType, turnEnd } from "../../../helpers/events.js";
import {
  CODEX_NOT_LOGGED_IN_MESSAGE,
  codexHarness,
  createCodexParser,
  parseCodexLimitText,
  readCodexRolloutQuota,
} from "../../../../src/harnesses/codex/index.js";

// The fixtures were recorded with TZ=UTC; Codex prints reset clock times in local time.
process.env.TZ = "UTC";

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), "../../../fixtures/codex/0.171.0");

/** The parts of a fixture's .meta.json the tests read (written by test/fixtures/record-codex.ts). */
const metaSchema = z.object({
  recordedAt: z.string(),
  steps: z.array(z.looseObject({ kind: z.string(), resetsAt: z.number().optional() })),
  quota: z
    .object({
      fiveHourUsedPercent: z.number(),
      fiveHourResetsAt: z.number(),
      weeklyUsedPercent: z.number(),
      weeklyResetsAt: z.number(),
    })
    .optional(),
  turns: z.array(z.object({ argv: z.array(z.string()), exitCode: z.number().optional() })),
  gitStatus: z.array(z.string()),
});

function meta(scenario: string) {
  return metaSchema.parse(JSON.parse(fs.readFileSync(path.join(FIXTURES, `${scenario}.meta.json`), "utf8")));
}

function fixtureLines(file: string): string[] {
  return fs.readFileSync(path.join(FIXTURES, file), "utf8").split("\n");
}

/** Feeds a recorded stdout through a fresh parser, then ends it the way the recorded process ended. */
function replay(scenario: string): ParsedEvent[] {
  const recorded = meta(scenario);
  const parser = createCodexParser({ now: () => new Date(recorded.recordedAt) });
  const events = fixtureLines(`${scenario}.jsonl`).flatMap((line) => parser.push(line));
  const stderrTail = fs.readFileSync(path.join(FIXTURES, `${scenario}.stderr.txt`), "utf8");
  events.push(...parser.finish({ exitCode: recorded.turns.at(-1)?.exitCode, stderrTail }));
  return events;
}

describe("the Codex stream parser on recorded 0.171.0 output", () => {
  test("a text reply yields the session, the text, the usage and a completed turn", () => {
    const events = replay("text");
    expect(events.map((e) => e.type)).toEqual(["session", "text", "usage", "turn_end"]);
    expect(ofType(events, "session")[0]?.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(ofType(events, "text")[0]?.text).toBe("Hello from the fake model.");
    expect(ofType(events, "usage")[0]).toEqual({
      type: "usage",
      inputTokens: 120,
      outputTokens: 12,
      cacheReadTokens: 20,
      cacheWriteTokens: 0,
    });
    expect(turnEnd(events).outcome).toBe("completed");
  });

  test("a file written through apply_patch becomes a file_change tool call and its result", () => {
    const events = replay("write-file");
    expect(meta("write-file").gitStatus).toEqual(["?? hello.txt"]);
    const [call] = ofType(events, "tool_call");
    expect(call?.name).toBe("file_change");
    const changes = z
      .object({ changes: z.array(z.object({ path: z.string(), kind: z.string() })) })
      .parse(call?.input).changes;
    expect(changes).toHaveLength(1);
    expect(changes[0]?.kind).toBe("add");
    expect(path.basename(changes[0]?.path ?? "")).toBe("hello.txt");
    const [result] = ofType(events, "tool_result");
    expect(result).toMatchObject({ id: call?.id, isError: false });
    expect(result?.output).toMatch(/^add \/.*hello\.txt$/);
    expect(ofType(events, "text").map((e) => e.text)).toEqual(["Writing hello.txt.", "Wrote hello.txt."]);
    expect(turnEnd(events).outcome).toBe("completed");
  });

  test("a shell command that exits non-zero is one tool call with an error result naming the exit code", () => {
    const events = replay("shell");
    const calls = ofType(events, "tool_call");
    expect(calls).toHaveLength(1); // item.started and item.completed announce the same call once
    expect(calls[0]).toMatchObject({ name: "shell", input: { command: "/bin/bash -lc 'echo from-shell; exit 3'" } });
    expect(ofType(events, "tool_result")).toEqual([
      { type: "tool_result", id: calls[0]?.id, output: "from-shell\n(exit code 3)", isError: true },
    ]);
    expect(turnEnd(events).outcome).toBe("completed");
  });

  test("a prompt starting with a dash reaches Codex as the prompt after --", () => {
    expect(meta("shell").turns[0]?.argv.slice(-2)).toEqual(["--", "-Run a command (the prompt starts with a dash)"]);
  });

  test("a write refused by the read-only sandbox leaves no tool call and no file", () => {
    const events = replay("plan-write-rejected");
    expect(meta("plan-write-rejected").gitStatus).toEqual([]);
    expect(ofType(events, "tool_call")).toEqual([]);
    // The refusal is known only from stderr, at exit: it follows the turn_end of turn.completed.
    expect(events.slice(-2).map((e) => e.type)).toEqual(["turn_end", "denial"]);
    expect(ofType(events, "turn_end").map((e) => e.outcome)).toEqual(["completed"]);
  });

  test("a transient 429 ends the turn failed with the rate_limited kind", () => {
    const events = replay("rate-limit");
    expect(ofType(events, "error").map((e) => e.kind)).toEqual(["rate_limited"]);
    expect(ofType(events, "limit_hit")).toEqual([]);
    expect(turnEnd(events)).toMatchObject({
      outcome: "failed",
      reason: "exceeded retry limit, last status: 429 Too Many Requests",
    });
  });

  test("a usage limit yields one limit_hit with the reset time and a limited turn", () => {
    const events = replay("usage-limit");
    const resetsAt = meta("usage-limit").steps[0]?.resetsAt ?? 0;
    const hits = ofType(events, "limit_hit");
    expect(hits).toHaveLength(1);
    expect(hits[0]?.message).toMatch(/^You’ve hit your usage limit\. Try again at \d{1,2}:\d{2} [AP]M\.$/);
    expect(hits[0]?.resetsAt).toBe(new Date(Math.floor(resetsAt / 60) * 60_000).toISOString());
    expect(ofType(events, "error")).toEqual([]);
    expect(turnEnd(events)).toMatchObject({ outcome: "limited", reason: hits[0]?.message });
  });

  test("a usage limit that resets on another day carries the full date", () => {
    const events = replay("usage-limit-date");
    const resetsAt = meta("usage-limit-date").steps[0]?.resetsAt ?? 0;
    const [hit] = ofType(events, "limit_hit");
    expect(hit?.message).toMatch(/Try again at [A-Z][a-z]{2} \d{1,2}(st|nd|rd|th), \d{4} \d{1,2}:\d{2} [AP]M\.$/);
    expect(hit?.resetsAt).toBe(new Date(Math.floor(resetsAt / 60) * 60_000).toISOString());
    expect(turnEnd(events).outcome).toBe("limited");
  });

  test("a resumed turn reports the same thread id it was resumed with", () => {
    const events = replay("resume");
    const argv = meta("resume").turns[1]?.argv ?? [];
    const resumed = argv[argv.indexOf("resume") + 1];
    expect(ofType(events, "session")[0]?.sessionId).toBe(resumed);
    expect(ofType(events, "text")[0]?.text).toBe("Second answer, with the history.");
    expect(turnEnd(events).outcome).toBe("completed");
  });

  test("a home with no login retries, then fails with the not_logged_in kind", () => {
    const events = replay("not-logged-in");
    expect(ofType(events, "retry").map((e) => e.attempt)).toEqual([2, 3, 4, 5, 1, 2, 3, 4, 5]);
    expect(ofType(events, "notice")[0]).toMatchObject({
      level: "warning",
      message: expect.stringMatching(/^Falling back from WebSockets/),
    });
    expect(ofType(events, "error")).toEqual([
      { type: "error", kind: "not_logged_in", message: CODEX_NOT_LOGGED_IN_MESSAGE },
    ]);
    expect(turnEnd(events)).toMatchObject({ outcome: "failed", reason: expect.stringContaining("401 Unauthorized") });
  });
});

describe("the Codex stream parser on broken or cut-short output", () => {
  test("a line that is not JSON becomes an unreadable_output error and parsing goes on", () => {
    const parser = createCodexParser();
    expect(parser.push("Segmentation fault {")).toEqual([
      {
        type: "error",
        kind: "unreadable_output",
        message: "Codex printed a line that is not JSON: Segmentation fault {",
      },
    ]);
    expect(parser.push('{"type":"thread.started"}')[0]).toMatchObject({ type: "error", kind: "unreadable_output" });
    expect(parser.push('{"type":"item.completed","item":{"id":"i","type":"agent_message"}}')[0]).toMatchObject({
      kind: "unreadable_output",
    });
    expect(parser.push('{"type":"thread.started","thread_id":"t1"}')).toEqual([{ type: "session", sessionId: "t1" }]);
  });

  test("unknown event and item types are skipped without an error", () => {
    const parser = createCodexParser();
    expect(parser.push('{"type":"turn.cost","usd":1}')).toEqual([]);
    expect(parser.push('{"type":"item.completed","item":{"id":"r","type":"reasoning","text":"hm"}}')).toEqual([]);
  });

  test("a stream cut short ends failed with the end of stderr", () => {
    const parser = createCodexParser();
    const lines = fixtureLines("text.jsonl").slice(0, 2);
    lines.forEach((line) => parser.push(line));
    const events = parser.finish({
      exitCode: 101,
      stderrTail: "Reading additional input from stdin...\nthread 'main' panicked at core.rs\n",
    });
    expect(events).toEqual([
      { type: "error", kind: "process_failed", message: "Codex failed: thread 'main' panicked at core.rs" },
      { type: "turn_end", outcome: "failed", reason: "thread 'main' panicked at core.rs", exitCode: 101 },
    ]);
  });

  test("a process stopped by a signal ends interrupted", () => {
    const parser = createCodexParser();
    parser.push('{"type":"turn.started"}');
    expect(parser.finish({ exitCode: undefined, signal: "SIGTERM", stderrTail: "" })).toEqual([
      { type: "turn_end", outcome: "interrupted", reason: "Codex was stopped (SIGTERM).", exitCode: null },
    ]);
  });

  test("stderr that says the home is not logged in ends with the not_logged_in kind", () => {
    const parser = createCodexParser();
    const events = parser.finish({ exitCode: 1, stderrTail: "Not logged in\n" });
    expect(events[0]).toEqual({ type: "error", kind: "not_logged_in", message: CODEX_NOT_LOGGED_IN_MESSAGE });
    expect(turnEnd(events).outcome).toBe("failed");
  });

  test("finish adds nothing after the stream already ended the turn", () => {
    const parser = createCodexParser();
    fixtureLines("text.jsonl").forEach((line) => parser.push(line));
    expect(parser.finish({ exitCode: 0, stderrTail: "" })).toEqual([]);
  });
});

describe("parseCodexLimitText", () => {
  const now = new Date(2026, 10, 30, 10, 0); // local time, like the CLI's own formatting
  const local = (...args: [number, number, number, number, number]) => new Date(...args).toISOString();

  test("a clock time later today resets today", () => {
    expect(parseCodexLimitText("You’ve hit your usage limit. Try again at 3:45 PM.", now)).toEqual({
      resetsAt: local(2026, 10, 30, 15, 45),
    });
  });

  test("a clock time already past resets tomorrow", () => {
    expect(parseCodexLimitText("You’ve hit your usage limit. … try again at 2:49 AM.", now)).toEqual({
      resetsAt: local(2026, 11, 1, 2, 49),
    });
  });

  test("the ChatGPT plan upsell with 'or try again at' is read", () => {
    const text =
      "You’ve hit your usage limit. Upgrade to Plus to continue using Codex (https://chatgpt.com/explore/plus), or try again at 11:05 AM.";
    expect(parseCodexLimitText(text, now)).toEqual({ resetsAt: local(2026, 10, 30, 11, 5) });
  });

  test("a date with an ordinal day and a year is read", () => {
    expect(parseCodexLimitText("You’ve hit your usage limit. Try again at Dec 3rd, 2026 1:45 AM.", now)).toEqual({
      resetsAt: local(2026, 11, 3, 1, 45),
    });
    const perModel =
      "You’ve hit your usage limit for gpt-5.5. Switch to another model now, or try again at Jan 2nd, 2027 9:05 PM.";
    expect(parseCodexLimitText(perModel, now)).toEqual({ resetsAt: local(2027, 0, 2, 21, 5) });
  });

  test("a date without a year resolves to the next such date", () => {
    expect(parseCodexLimitText("You've hit your usage limit. Try again at Jan 4, 7:00 AM.", now)).toEqual({
      resetsAt: local(2027, 0, 4, 7, 0),
    });
  });

  test("an old countdown in days, hours and minutes is added to now", () => {
    const text = "You've hit your usage limit. Try again in 5 days 22 hours 11 minutes.";
    const expected = new Date(now.getTime() + ((5 * 24 + 22) * 60 + 11) * 60_000).toISOString();
    expect(parseCodexLimitText(text, now)).toEqual({ resetsAt: expected });
  });

  test("a limit without a reset time is still a limit", () => {
    expect(parseCodexLimitText("You’ve hit your usage limit. Try again later.", now)).toEqual({});
  });

  test("other failures are not limits", () => {
    expect(parseCodexLimitText("exceeded retry limit, last status: 429 Too Many Requests", now)).toBeUndefined();
    expect(parseCodexLimitText("Reconnecting... 2/5 (stream disconnected before completion)", now)).toBeUndefined();
  });
});

describe("readCodexRolloutQuota", () => {
  test("the recorded rollout yields the 5-hour and weekly windows from the quota headers", () => {
    const quota = meta("text").quota!;
    const windows = readCodexRolloutQuota(fixtureLines("rollout-quota.jsonl"));
    expect(windows).toEqual([
      expect.objectContaining({
        kind: "five_hour",
        usedPercent: quota.fiveHourUsedPercent,
        resetsAt: new Date(quota.fiveHourResetsAt * 1000).toISOString(),
        status: "allowed",
        source: "codex-rollout",
      }),
      expect.objectContaining({
        kind: "seven_day",
        usedPercent: quota.weeklyUsedPercent,
        resetsAt: new Date(quota.weeklyResetsAt * 1000).toISOString(),
        status: "allowed",
      }),
    ]);
    expect(Number.isNaN(Date.parse(windows[0]?.observedAt ?? ""))).toBe(false);
  });

  test("an older token_count with resets_in_seconds counts from the line's time", () => {
    const recorded = fixtureLines("rollout-quota.jsonl").find((l) => l.includes('"token_count"')) ?? "";
    const line = z.looseObject({ timestamp: z.string(), payload: z.looseObject({}) }).parse(JSON.parse(recorded));
    const older = JSON.stringify({
      ...line,
      payload: {
        type: "token_count",
        info: null,
        rate_limits: { primary: { used_percent: 100, window_minutes: 300, resets_in_seconds: 90 } },
      },
    });
    const [window] = readCodexRolloutQuota([recorded, older, "{cut sh"]);
    expect(window).toMatchObject({
      kind: "five_hour",
      usedPercent: 100,
      status: "rejected",
      resetsAt: new Date(Date.parse(line.timestamp) + 90_000).toISOString(),
    });
  });

  test("a rollout without rate limits yields no windows", () => {
    expect(
      readCodexRolloutQuota(fixtureLines("rollout-quota.jsonl").filter((l) => !l.includes('"token_count"'))),
    ).toEqual([]);
  });
});

describe("the Codex turn command", () => {
  const base = { prompt: "-p", cwd: "/w", binary: "/bin/codex", env: { PATH: "/bin" } };

  test("a first Build turn writes the workspace and puts the prompt after --", () => {
    const command = codexHarness.turnCommand({
      ...base,
      mode: "build",
      model: "gpt-5.5",
      addDirs: ["/mem"],
      loginHome: "/homes/work",
    });
    expect(command.args).toEqual([
      "exec",
      "--json",
      "-s",
      "workspace-write",
      "-C",
      "/w",
      "-m",
      "gpt-5.5",
      "--add-dir",
      "/mem",
      "--",
      "-p",
    ]);
    expect(command.env).toEqual({ PATH: "/bin", CODEX_HOME: "/homes/work" });
  });

  test("a resumed Planner turn passes the sandbox again before the resume subcommand", () => {
    const command = codexHarness.turnCommand({ ...base, mode: "plan", resumeSessionId: "t-1" });
    expect(command.args).toEqual(["exec", "--json", "-s", "read-only", "-C", "/w", "resume", "t-1", "--", "-p"]);
    expect(command.env).toEqual({ PATH: "/bin" });
  });
});
