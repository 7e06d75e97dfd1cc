import path from "node:path";
import { runLiveTurn } from "../../../../src/core/agents/live-turn.js";
import type { ParsedEvent } from "../../../../src/core/foundation/events.js";
import { projectConfigSchema } from "../../../../src/core/foundation/model.js";
import { localRunner } from "../../../../src/core/foundation/runner.js";
import { agyHarness, createAgyLive } from "../../../../src/harnesses/agy/index.js";
import type { TurnInput } from "../../../../src/harnesses/types.js";
import { agyScript, FAKE_AGY, type AgyTurn } from "../../../helpers/agy-env.js";
import { ofType } from "../../../helpers/events.js";
import { makeSandbox, type Sandbox } from "../../../helpers/offrun.js";

// agy 1.2.1+ retries an exhausted quota in-process and says nothing until its --print-timeout
// (60 minutes in Offrun's turns). The live turn's watchdog must end such a turn within a minute,
// as limited and with the reset, by asking agy on the same login; and leave a healthy quiet turn
// alone. The real fake agy runs each time; the waits are shortened through createAgyLive's options.

let box: Sandbox;
beforeAll(async () => {
  box = await makeSandbox("offrun-agy-watch-");
});
afterAll(async () => box.cleanup());

async function liveTurn(name: string, turns: AgyTurn[], opts: { version?: string; prompt?: string } = {}) {
  const script = await agyScript(path.join(box.dir, name, "script.json"), {
    turns,
    ...(opts.version ? { version: opts.version } : {}),
  });
  const input: TurnInput = {
    prompt: opts.prompt ?? "do the work",
    ...(opts.prompt ? { promptViaStdin: true } : {}),
    mode: "build",
    cwd: box.dir,
    binary: FAKE_AGY,
    loginHome: path.join(box.dir, name, "home"),
    env: { ...box.env, FAKE_AGY_SCRIPT: script.file },
  };
  const live = createAgyLive(agyHarness.turnCommand, { quietMs: 1_000, probeTimeout: "1s" });
  const events: ParsedEvent[] = [];
  const started = Date.now();
  await runLiveTurn(live, {
    turn: 1,
    runner: localRunner,
    input,
    config: projectConfigSchema.parse({}),
    signal: new AbortController().signal,
    hooks: { ask: () => Promise.reject(new Error("agy never asks")) },
    handle: (e) => events.push(...e),
    onSpawn: () => undefined,
    onKilled: (why) => events.push({ type: "turn_end", outcome: "cancelled", reason: `killed: ${why}` }),
  });
  return { events, seconds: (Date.now() - started) / 1000, calls: await script.calls() };
}

test("a turn agy keeps retrying on an exhausted quota ends limited, with the reset, long before its print timeout", async () => {
  // The main turn would retry for its whole 60m print timeout; the probe gets agy's error after its 1s.
  const { events, seconds, calls } = await liveTurn("exhausted", [{ scenario: "quota-retrying", resetsIn: "4h2m" }]);
  const ends = ofType(events, "turn_end");
  expect(ends[0]).toMatchObject({ outcome: "limited" });
  const limit = ofType(events, "limit_hit")[0]!;
  expect(limit.window).toBe("five_hour");
  expect(Date.parse(limit.resetsAt!) - Date.now()).toBeGreaterThan(4 * 3600_000);
  expect(seconds).toBeLessThan(20);
  const turns = calls.filter((c) => c.call !== "models" && !c.argv.includes("--version"));
  expect(turns.map((c) => c.probe)).toEqual([false, true]);
  expect(turns[0]!.argv).toContain("60m");
});

test("a quiet healthy turn is probed, found healthy, and left to finish", async () => {
  const { events, calls } = await liveTurn("healthy", [
    { scenario: "text", text: "Thought it through.", thinkSeconds: 2.5 },
  ]);
  expect(calls.filter((c) => c.probe).length).toBeGreaterThanOrEqual(1);
  expect(ofType(events, "limit_hit")).toEqual([]);
  expect(ofType(events, "text").map((e) => e.text)).toEqual(["Thought it through.\n"]);
  expect(ofType(events, "turn_end")).toEqual([expect.objectContaining({ outcome: "completed" })]);
});

test("an agy older than 1.1.12 is refused with what to do, and no turn runs", async () => {
  const { events, calls } = await liveTurn("old", [{ scenario: "text", text: "hi" }], { version: "1.1.5" });
  expect(ofType(events, "error")).toEqual([
    expect.objectContaining({ kind: "not_installed", message: expect.stringContaining("Run `agy update`") }),
  ]);
  expect(ofType(events, "turn_end")).toHaveLength(1);
  expect(calls.filter((c) => c.argv.some((a) => a.startsWith("-p=")))).toHaveLength(0);
});

test("a prompt too long for one argument reaches agy on stdin, with no -p", async () => {
  const prompt = `${"long context ".repeat(20_000)}END`;
  const { events, calls } = await liveTurn("stdin", [{ scenario: "text", text: "Read it all." }], { prompt });
  expect(ofType(events, "turn_end")).toEqual([expect.objectContaining({ outcome: "completed" })]);
  const turn = calls.find((c) => c.stdin !== undefined)!;
  expect(turn.stdin).toBe(prompt);
  expect(turn.argv.some((a) => a.startsWith("-p"))).toBe(false);
});
