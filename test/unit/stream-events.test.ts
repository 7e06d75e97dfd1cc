import fs from "node:fs";
import path from "node:path";
import {
  agentEventSchema,
  recordedEventSchema,
  streamEventSchema,
  type AgentEvent,
  type ParsedEvent,
  type RecordedEvent,
  type StreamEvent,
} from "../../src/core/foundation/events.js";
import { BUILTIN_HARNESSES } from "../../src/harnesses/registry.js";
import type { LiveTurnIO, StreamParser } from "../../src/harnesses/types.js";
import { PROJECT_ROOT } from "../helpers/offrun.js";

// An adapter emits only what a CLI's stream can say; the events Offrun records (a review, a login
// switch, a decision) are the core's. The type checks below are compiled by `npm run typecheck`
// (tsconfig includes test/): when a parser or a live turn may emit a recorded event again, each
// `@ts-expect-error` goes unused and the type check fails.

/** A parser that claims a review: the adapter's output type refuses it. */
export const parserWritingAReview: StreamParser = {
  push: () => [
    {
      // @ts-expect-error a parser cannot emit a review (a recorded event)
      type: "review",
      id: "r",
      reviewer: { harness: "codex", account: "default" },
      outcome: "failed",
      findings: [],
      blockedWrites: [],
      scope: { base: "HEAD", commits: 0, files: 0 },
    },
  ],
  finish: () => [
    // @ts-expect-error nor a login switch
    { type: "account_switch", from: "a", to: "b", reason: "limit" },
    { type: "turn_end", outcome: "completed" },
  ],
};

/** A live turn that logs a decision itself instead of asking through `decide`: refused too. */
export function liveTurnDeciding(io: LiveTurnIO): void {
  // @ts-expect-error a live turn cannot emit a decision; io.decide logs the request and its answer
  io.emit([{ type: "decision", id: "1", decision: "allow", by: "user" }]);
  // @ts-expect-error nor a reset wait
  io.emit([{ type: "reset_wait", phase: "waiting", resumesAt: "", account: "a", message: "" }]);
}

/** `A` and `B` are the same type (each assignable to the other), or the check below fails to compile. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const partition: [
  Same<StreamEvent | RecordedEvent, AgentEvent>,
  Same<Extract<StreamEvent["type"], RecordedEvent["type"]>, never>,
  Same<ParsedEvent["type"], StreamEvent["type"]>,
] = [true, true, true];

const stamp = { at: "2026-12-05T00:00:00.000Z", turn: 1 };

test("the log reads both kinds, and each kind's schema only its own", () => {
  // The type checks above are compile-time only; this keeps the file from being a test of nothing at run time.
  expect(partition).toEqual([true, true, true]);
  const switched = { ...stamp, type: "account_switch", from: "a", to: "b", reason: "limit" };
  const said = { ...stamp, type: "text", text: "done" };
  expect(agentEventSchema.safeParse(switched).success).toBe(true);
  expect(agentEventSchema.safeParse(said).success).toBe(true);
  expect(recordedEventSchema.safeParse(switched).success).toBe(true);
  expect(streamEventSchema.safeParse(switched).success).toBe(false);
  expect(streamEventSchema.safeParse(said).success).toBe(true);
  expect(recordedEventSchema.safeParse(said).success).toBe(false);
});

test("every built-in parser turns its recorded streams into stream events the schema accepts", () => {
  let checked = 0;
  for (const harness of BUILTIN_HARNESSES) {
    const root = path.join(PROJECT_ROOT, "test", "fixtures", harness.id);
    if (!fs.existsSync(root)) continue;
    const streams = fs
      .readdirSync(root, { recursive: true, encoding: "utf8" })
      .filter((file) => /\.(jsonl|stream)$/.test(file) && !file.includes("transcripts") && !file.includes("home"));
    for (const file of streams) {
      const parser = harness.createParser();
      const lines = fs.readFileSync(path.join(root, file), "utf8").split("\n");
      const events = [...lines.flatMap((line) => parser.push(line)), ...parser.finish({ exitCode: 0, stderrTail: "" })];
      for (const event of events) {
        const parsed = streamEventSchema.safeParse({ ...event, ...stamp });
        if (!parsed.success)
          throw new Error(`${harness.id} ${file}: ${JSON.stringify(event)}: ${parsed.error.message}`);
      }
      checked += 1;
    }
  }
  expect(checked).toBeGreaterThan(20);
});
