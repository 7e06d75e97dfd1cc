import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createGeminiTranscriptClassifier, geminiTranscripts } from "../../src/harnesses/gemini/transcript.js";
import { createPiTranscriptClassifier, piTranscripts } from "../../src/harnesses/pi/transcript.js";
import type { TranscriptClassifier, TranscriptMoment } from "../../src/harnesses/types.js";
import { PROJECT_ROOT } from "../helpers/offrun.js";

// Replays the real CLIs' own session files (test/fixtures/record-transcripts.ts pi gemini).
const PI = path.join(PROJECT_ROOT, "test/fixtures/pi/0.73.1/transcripts");
const GEMINI = path.join(PROJECT_ROOT, "test/fixtures/gemini/0.61.0/transcripts");

const lines = (file: string) => fs.readFileSync(file, "utf8").split("\n").filter(Boolean);
const feed = (classifier: TranscriptClassifier, all: string[]) => all.flatMap((l) => classifier.push(l));
const brief = (moments: TranscriptMoment[]) => moments.map((m) => [m.kind, m.text]);
/** The index of the first line holding every one of `parts`. */
const lineWith = (all: string[], ...parts: string[]) => all.findIndex((l) => parts.every((p) => l.includes(p)));

test("Pi turns that stop become finished with their last words, and one ending on a question becomes a question", () => {
  const file = path.join(PI, "turn-end.jsonl");
  const moments = feed(createPiTranscriptClassifier(file, { now: () => 0 }), lines(file));
  // The first turn's tool call (stopReason toolUse, "Writing hello.txt.") ends nothing.
  expect(brief(moments)).toEqual([
    ["finished", "All 12 tests pass now; the flaky upload test waits for the server."],
    ["question", "Should I also update the README?"],
  ]);
  expect(moments[0]?.sessionId).toBe("01a22ad6-ac34-7145-ba19-f4b25aa4b460");
  expect(moments[0]?.cwd).toMatch(/\/repo$/);
  expect(moments[0]?.eventId).not.toBe(moments[1]?.eventId);
});

test("a Pi usage limit retried three times is told once, as a limit with the provider's text", () => {
  const file = path.join(PI, "usage-limit.jsonl");
  const all = lines(file);
  expect(all.filter((l) => l.includes('"stopReason":"error"'))).toHaveLength(3);
  const moments = feed(createPiTranscriptClassifier(file, { now: () => 0 }), all);
  expect(moments.map((m) => m.kind)).toEqual(["limit"]);
  expect(moments[0]?.text).toMatch(/^You have hit your usage limit\. Your quota resets at 2026-11-30T06:04:03/);
});

test("Pi session files are the ones in a session folder, and nothing Pi writes waits on time", () => {
  const root = path.join(os.tmpdir(), "pi-home", "sessions");
  expect(piTranscripts.isSession(path.join(root, "--tmp-repo--", "2026-11-30T05-04-01-588Z_01a2.jsonl"), root)).toBe(
    true,
  );
  expect(piTranscripts.isSession(path.join(root, "2026_01a2.jsonl"), root)).toBe(false);
  expect(piTranscripts.isSession(path.join(root, "other", "x.jsonl"), root)).toBe(false);
  const file = path.join(PI, "turn-end.jsonl");
  const all = lines(file);
  const classifier = createPiTranscriptClassifier(file);
  // Up to the tool call: a Pi tool call is running, never waiting for approval.
  feed(classifier, all.slice(0, lineWith(all, '"stopReason":"toolUse"') + 1));
  expect(classifier.nextDueAt()).toBeUndefined();
  expect(classifier.due(Number.MAX_SAFE_INTEGER)).toEqual([]);
});

test("a Gemini reply with text is the turn's end only once nothing followed it for the settle period", () => {
  let now = 0;
  const file = path.join(GEMINI, "turn-end.jsonl");
  const all = lines(file);
  const classifier = createGeminiTranscriptClassifier(file, { settleMs: 3000, now: () => now });
  const firstEnd = lineWith(all, '"type":"gemini"', "All 12 tests pass");
  expect(feed(classifier, all.slice(0, firstEnd + 1))).toEqual([]);
  now = 2999;
  expect(classifier.due(now)).toEqual([]);
  now = 3000;
  const finished = classifier.due(now);
  expect(brief(finished)).toEqual([["finished", "All 12 tests pass now; the flaky upload test waits for the server."]]);
  expect(finished[0]?.sessionId).toBe("754b7b8e-011e-453e-8f1a-0e5caa460fb7");
  // The resume's header, its `$set` of the whole history (this reply included) and the next turn.
  expect(feed(classifier, all.slice(firstEnd + 1))).toEqual([]);
  now += 3000;
  expect(brief(classifier.due(now))).toEqual([["question", "Should I also update the README?"]]);
  expect(classifier.due(now + 60_000)).toEqual([]);
});

test("a Gemini reply written again with its completed tool calls was not the turn's end", () => {
  let now = 0;
  const file = path.join(GEMINI, "turn-end.jsonl");
  const all = lines(file);
  const preamble = lineWith(all, '"type":"gemini"', "Writing hello.txt.");
  const withCalls = lineWith(all, "Writing hello.txt.", '"toolCalls"');
  expect(withCalls).toBeGreaterThan(preamble);
  const classifier = createGeminiTranscriptClassifier(file, { settleMs: 3000, now: () => now });
  feed(classifier, all.slice(0, preamble + 1));
  expect(classifier.nextDueAt()).toBe(3000);
  feed(classifier, all.slice(preamble + 1, withCalls + 1));
  now = 60_000;
  expect(classifier.due(now)).toEqual([]);
  expect(classifier.nextDueAt()).toBeUndefined();
});

test("a Gemini turn end still settling is handed to the next classifier and told once", () => {
  const file = path.join(GEMINI, "turn-end.jsonl");
  const all = lines(file);
  const first = createGeminiTranscriptClassifier(file, { settleMs: 3000, now: () => 1000 });
  feed(first, all.slice(0, lineWith(all, '"type":"gemini"', "All 12 tests pass") + 1));
  const saved = JSON.parse(JSON.stringify(first.waiting())) as ReturnType<typeof first.waiting>;
  const next = createGeminiTranscriptClassifier(file, { settleMs: 3000, now: () => 1000 });
  next.restoreWaiting(saved);
  expect(next.due(3999)).toEqual([]);
  expect(brief(next.due(4000))).toEqual([
    ["finished", "All 12 tests pass now; the flaky upload test waits for the server."],
  ]);
  expect(next.waiting()).toEqual([]);
});

test("a Gemini quota error leaves only the prompt in the chat file, so it tells nothing", () => {
  const file = path.join(GEMINI, "usage-limit.jsonl");
  const classifier = createGeminiTranscriptClassifier(file, { settleMs: 3000, now: () => 0 });
  expect(feed(classifier, lines(file))).toEqual([]);
  expect(classifier.due(Number.MAX_SAFE_INTEGER)).toEqual([]);
});

test("Gemini sessions are the chats folder's session files, and their cwd is the project's .project_root", () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "gemini-tmp-"));
  const file = path.join(root, "repo", "chats", "session-2026-11-30T05-04-754b7b8e.jsonl");
  expect(geminiTranscripts.isSession(file, root)).toBe(true);
  expect(geminiTranscripts.isSession(path.join(root, "repo", "logs", "session-754b7b8e.jsonl"), root)).toBe(false);
  expect(geminiTranscripts.isSession(path.join(root, "repo", "chats", "754b7b8e", "sub-agent.jsonl"), root)).toBe(
    false,
  );
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(path.join(root, "repo", ".project_root"), "/work/shop");
  const all = lines(path.join(GEMINI, "turn-end.jsonl"));
  const classifier = createGeminiTranscriptClassifier(file, { settleMs: 0, now: () => 0 });
  feed(classifier, all.slice(0, lineWith(all, '"type":"gemini"', "All 12 tests pass") + 1));
  expect(classifier.due(0).map((m) => m.cwd)).toEqual(["/work/shop"]);
  fs.rmSync(root, { recursive: true, force: true });
});
