import fs from "node:fs";
import path from "node:path";
import { createClaudeTranscriptClassifier, claudeTranscripts } from "../../src/harnesses/claude/transcript.js";
import { createCodexTranscriptClassifier, codexTranscripts } from "../../src/harnesses/codex/transcript.js";
import type { TranscriptClassifier, TranscriptMoment } from "../../src/harnesses/types.js";
import { PROJECT_ROOT } from "../helpers/offrun.js";

// Replays the real CLIs' own session files (test/fixtures/record-transcripts.ts, record-quota-sessions.ts).
const CLAUDE = path.join(PROJECT_ROOT, "test/fixtures/claude/2.1.332");
const CLAUDE_QUOTA = path.join(CLAUDE, "quota-home/projects/-tmp-offrun-rec-quota-claude-Mv4PF3-repo");
const CODEX_DAY = path.join(PROJECT_ROOT, "test/fixtures/codex/0.171.0/quota-home/sessions/2026/11/30");

const lines = (file: string) => fs.readFileSync(file, "utf8").split("\n").filter(Boolean);
const feed = (classifier: TranscriptClassifier, all: string[]) => all.flatMap((l) => classifier.push(l));
const brief = (moments: TranscriptMoment[]) => moments.map((m) => [m.kind, m.text]);

test("Claude turn ends become finished, and a turn ending on a question becomes a question", () => {
  const file = path.join(CLAUDE, "transcripts/turn-end.jsonl");
  const moments = feed(createClaudeTranscriptClassifier(file), lines(file));
  expect(brief(moments)).toEqual([
    ["finished", "All 12 tests pass now; the flaky upload test waits for the server."],
    ["question", "Should I also update the README?"],
  ]);
  expect(moments[0]?.cwd).toMatch(/\/repo$/);
  expect(moments[0]?.sessionId).toBe("d76a1ec2-0968-454a-aa1e-df60a56100ae");
});

test("a Claude tool call without its result waits for approval only after the grace period", () => {
  let now = 1_000;
  const file = path.join(CLAUDE, "transcripts/tool-approval.jsonl");
  const all = lines(file);
  const cut = all.findIndex((l) => l.includes('"tool_use"') && l.includes('"type":"assistant"'));
  const classifier = createClaudeTranscriptClassifier(file, { graceMs: 6000, now: () => now });
  expect(feed(classifier, all.slice(0, cut + 1))).toEqual([]);
  now += 5999;
  expect(classifier.due(now)).toEqual([]);
  now += 1;
  expect(brief(classifier.due(now))).toEqual([["needs-approval", "npm install left-pad"]]);
  expect(classifier.due(now + 60_000)).toEqual([]); // told once
});

test("a Claude call still waiting is handed to the next classifier, told once when due and never if its result comes", () => {
  let now = 1_000;
  const file = path.join(CLAUDE, "transcripts/tool-approval.jsonl");
  const all = lines(file);
  const cut = all.findIndex((l) => l.includes('"tool_use"') && l.includes('"type":"assistant"'));
  const first = createClaudeTranscriptClassifier(file, { graceMs: 6000, now: () => now });
  feed(first, all.slice(0, cut + 1));
  // JSON round trip: what the offsets file keeps across a restart.
  const saved = JSON.parse(JSON.stringify(first.waiting())) as ReturnType<typeof first.waiting>;
  expect(saved.map((w) => w.moment.text)).toEqual(["npm install left-pad"]);
  const next = createClaudeTranscriptClassifier(file, { graceMs: 6000, now: () => now });
  next.restoreWaiting(saved);
  expect(next.due(now + 5999)).toEqual([]);
  expect(brief(next.due(now + 6000))).toEqual([["needs-approval", "npm install left-pad"]]);
  expect(next.waiting()).toEqual([]); // told: not saved again
  const answered = createClaudeTranscriptClassifier(file, { graceMs: 6000, now: () => now });
  answered.restoreWaiting(saved);
  feed(answered, all.slice(cut + 1));
  now += 60_000;
  expect(answered.due(now)).toEqual([]);
});

test("a Claude tool call whose result arrives (the CLI ran or refused it) never waits for approval", () => {
  let now = 0;
  const file = path.join(CLAUDE, "transcripts/slow-command.jsonl");
  const classifier = createClaudeTranscriptClassifier(file, { now: () => now });
  expect(brief(feed(classifier, lines(file)))).toEqual([["finished", "Slept."]]);
  now = 1e9;
  expect(classifier.due(now)).toEqual([]);
  expect(classifier.nextDueAt()).toBeUndefined();
});

test("a Claude sub-agent's lines tell nothing, and sub-agent files are not sessions", () => {
  const file = path.join(CLAUDE_QUOTA, "9c9e211a-45cf-403b-b4d6-44b2375067ba/subagents/agent-aabbf3188b4a66383.jsonl");
  const classifier = createClaudeTranscriptClassifier(file, { now: () => 0 });
  expect(feed(classifier, lines(file))).toEqual([]);
  expect(classifier.due(1e12)).toEqual([]);
  const root = path.join(CLAUDE, "quota-home/projects");
  expect(claudeTranscripts.isSession(file, root)).toBe(false);
  expect(claudeTranscripts.isSession(path.join(CLAUDE_QUOTA, "dae321a5-2177-49c1-afe9-93790d3e8721.jsonl"), root)).toBe(
    true,
  );
});

test("Claude's limit message becomes a limit with its text", () => {
  const file = path.join(CLAUDE_QUOTA, "966c2f86-3398-4fcc-84ee-5d960db0ef65.jsonl");
  expect(brief(feed(createClaudeTranscriptClassifier(file), lines(file)))).toEqual([
    ["limit", "You've hit your 5-hour limit · resets 10:01am (Asia/Kolkata)"],
  ]);
});

test("Codex task_complete ends a turn with the last agent message, and a usage-limit error is a limit", () => {
  const twoTurns = path.join(CODEX_DAY, "rollout-2026-11-30T02-17-32-01a22a3e-41cf-7b11-a197-77f734e7bb1d.jsonl");
  const moments = feed(createCodexTranscriptClassifier(twoTurns, { now: () => 0 }), lines(twoTurns));
  expect(brief(moments)).toEqual([
    ["finished", "First answer."],
    ["finished", "Listed."],
  ]);
  expect(moments[0]?.sessionId).toBe("01a22a3e-41cf-7b11-a197-77f734e7bb1d");
  expect(moments[0]?.cwd).toMatch(/\/repo$/);
  expect(moments[0]?.eventId).not.toBe(moments[1]?.eventId);
  const limited = path.join(CODEX_DAY, "rollout-2026-11-30T02-17-33-01a22a3e-4425-71d1-a82d-0a7294b1cdda.jsonl");
  expect(brief(feed(createCodexTranscriptClassifier(limited), lines(limited)))).toEqual([
    ["limit", "You’ve hit your usage limit. Try again at 4:31 AM."],
  ]);
  expect(
    codexTranscripts.isSession(twoTurns, path.join(PROJECT_ROOT, "test/fixtures/codex/0.171.0/quota-home/sessions")),
  ).toBe(true);
});

test("a Codex shell call left without output waits for approval with its command", () => {
  let now = 0;
  const file = path.join(CODEX_DAY, "rollout-2026-11-30T02-17-32-01a22a3e-41cf-7b11-a197-77f734e7bb1d.jsonl");
  const all = lines(file);
  const call = all.findIndex((l) => l.includes('"function_call"'));
  const classifier = createCodexTranscriptClassifier(file, { graceMs: 12_000, now: () => now });
  feed(classifier, all.slice(0, call + 1));
  expect(classifier.due(11_999)).toEqual([]);
  now = 12_000;
  expect(brief(classifier.due(now))).toEqual([["needs-approval", "ls"]]);
});
