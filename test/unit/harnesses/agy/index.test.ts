import fs from "node:fs/promises";
import path from "node:path";
import type { ParsedEvent } from "../../../../src/core/foundation/events.js";
import { runCommand } from "../../../../src/core/foundation/process.js";
import { localRunner } from "../../../../src/core/foundation/runner.js";
import { agyHarness, agyTurnArgs, copyAgySession, parseAgyLimitText } from "../../../../src/harnesses/agy/index.js";
import { createAgyParser } from "../../../../src/harnesses/agy/parser.js";
import { agyScript, FAKE_AGY, type AgyTurn } from "../../../helpers/agy-env.js";
import { ofType, turnEnd } from "../../../helpers/events.js";
import { makeSandbox, type Sandbox } from "../../../helpers/offrun.js";

let box: Sandbox;
beforeAll(async () => {
  box = await makeSandbox("offrun-agy-unit-");
});
afterAll(async () => box.cleanup());

/** One turn of the fake agy with `args`, parsed as a turn of Offrun would be. */
async function turn(name: string, script: AgyTurn, args: string[] = ["-p", "go", "--output-format", "stream-json"]) {
  const s = await agyScript(path.join(box.dir, name, "script.json"), { turns: [script] });
  const env = { ...box.env, HOME: path.join(box.dir, name, "home"), FAKE_AGY_SCRIPT: s.file };
  const result = await runCommand({ file: FAKE_AGY, args, env, cwd: box.dir }, { timeoutMs: 20_000 });
  const parser = createAgyParser({ now: () => new Date("2026-09-14T10:00:00Z") });
  const events: ParsedEvent[] = result.stdout.split("\n").flatMap((l) => parser.push(l));
  events.push(...parser.finish({ exitCode: result.exitCode, stderrTail: result.stderr }));
  return { events, result };
}

describe("agy's stream, as the fake replays it", () => {
  test("a reply: the conversation id from init, the text, the turn's own tokens and a completed end", async () => {
    const { events } = await turn("text", { scenario: "text", text: "Hello there." });
    expect(ofType(events, "session")[0]!.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(ofType(events, "text").map((e) => e.text)).toEqual(["Hello there.\n"]);
    // The step's usage, not the result's (which adds up the whole conversation).
    expect(ofType(events, "usage")).toEqual([
      { type: "usage", inputTokens: 14375, outputTokens: 1, cacheReadTokens: 0 },
    ]);
    expect(turnEnd(events)).toMatchObject({ outcome: "completed" });
  });

  test("a write_to_file step is a tool call and its result", async () => {
    const target = path.join(box.dir, "w", "notes.md");
    const { events } = await turn("write", { scenario: "write-file", path: target, content: "x\n", text: "Done." });
    expect(ofType(events, "tool_call")).toEqual([
      { type: "tool_call", id: "step-2", name: "write_to_file", input: { TargetFile: target } },
    ]);
    expect(ofType(events, "tool_result")).toMatchObject([{ id: "step-2", isError: false }]);
    expect(await fs.readFile(target, "utf8")).toBe("x\n");
  });

  test("a refused command is one denial: the stream names it, the stderr notice about it adds none", async () => {
    const { events } = await turn("denied", { scenario: "denied", command: "npm install" });
    expect(ofType(events, "denial")).toEqual([
      { type: "denial", tool: "run_command", input: { CommandLine: "npm install" } },
    ]);
    expect(ofType(events, "tool_result")[0]).toMatchObject({
      isError: true,
      output: expect.stringContaining("user denied permission"),
    });
    expect(turnEnd(events)).toMatchObject({ outcome: "completed" });
  });

  test("Planner: --mode plan refuses the write, which is a denial, and nothing is written", async () => {
    const target = path.join(box.dir, "p", "plan.md");
    const { events } = await turn(
      "plan",
      { scenario: "write-file", path: target, content: "no\n", text: "Approve the plan first." },
      ["-p", "go", "--output-format", "stream-json", "--mode", "plan"],
    );
    expect(ofType(events, "denial").map((e) => e.tool)).toEqual(["write_to_file"]);
    await expect(fs.access(target)).rejects.toThrow();
  });

  // Regression: read as Gemini CLI's stream, this ended "exited with code 0 without a result" and lost the reset.
  test("an exhausted quota is a limit with its reset, though agy exits 0", async () => {
    const { events, result } = await turn("quota", { scenario: "quota-retrying", resetsIn: "2h39m52s" }, [
      "-p",
      "go",
      "--output-format",
      "stream-json",
      "--print-timeout",
      "1s",
    ]);
    expect(result.exitCode).toBe(0);
    expect(ofType(events, "limit_hit")).toMatchObject([
      {
        window: "five_hour",
        resetsAt: "2026-09-14T12:39:52.000Z",
        message: expect.stringContaining("Individual quota reached"),
      },
    ]);
    expect(turnEnd(events)).toMatchObject({ outcome: "limited" });
  });
});

test("an auto-deny notice that only stderr carries is a denial of the permission it names", () => {
  const parser = createAgyParser();
  parser.push('{"event":"init","conversation_id":"c1","init":{}}');
  const ended = parser.push('{"event":"result","result":{"conversation_id":"c1","status":"SUCCESS","response":""}}');
  expect(ended.at(-1)).toMatchObject({ type: "turn_end", outcome: "completed" });
  const stderr =
    'jetski: no output produced — a tool required the "mcp" permission that headless mode cannot prompt for, so it was auto-denied. Add an allow-rule under permissions.allow in settings.json (e.g. mcp(<target>)).';
  expect(parser.finish({ exitCode: 0, stderrTail: stderr })).toEqual([
    { type: "denial", tool: "mcp", input: { permission: "mcp" } },
  ]);
});

test("limit texts: a reset within five hours is the 5-hour window, a later one the weekly", () => {
  const now = new Date("2026-06-01T00:00:00Z");
  expect(
    parseAgyLimitText(
      "Individual quota reached. Contact your administrator to enable overages. Resets in 108h48m29s.",
      now,
    ),
  ).toEqual({
    window: "seven_day",
    resetsAt: "2026-06-05T12:48:29.000Z",
  });
  expect(
    parseAgyLimitText("RESOURCE_EXHAUSTED (code 429): Individual quota reached. Resets in 58s.", now)?.window,
  ).toBe("five_hour");
  // A 429 that names no reset is the per-minute rate limit, not a limit of the login.
  expect(parseAgyLimitText("RESOURCE_EXHAUSTED (code 429): rate limited", now)).toBeUndefined();
});

describe("argv", () => {
  test("Build: print mode, stream-json, accept-edits, no slash commands, the model and its effort", () => {
    expect(
      agyTurnArgs({
        prompt: "-x",
        mode: "build",
        model: "gemini-3.6-flash-low",
        resumeSessionId: "c1",
        addDirs: ["/m"],
      }),
    ).toEqual([
      "-p=-x",
      "--output-format",
      "stream-json",
      "--print-timeout",
      "60m",
      "--mode",
      "accept-edits",
      "--disable-slash-commands",
      "--model",
      "gemini-3.6-flash-low",
      "--effort",
      "low",
      "--conversation",
      "c1",
      "--add-dir",
      "/m",
    ]);
  });

  test("Planner: --mode plan without --disable-slash-commands, and a prompt that cannot run as a command", () => {
    const args = agyTurnArgs({ prompt: "/clear the cache", mode: "plan", model: "high" });
    expect(args[0]).toBe("-p= /clear the cache");
    expect(args).toContain("plan");
    expect(args).not.toContain("--disable-slash-commands");
    expect(args.slice(-2)).toEqual(["--effort", "high"]);
  });

  test("a long prompt goes on stdin, and the login's home is HOME", () => {
    const command = agyHarness.turnCommand({
      prompt: "long",
      mode: "build",
      cwd: "/w",
      binary: "agy",
      env: {},
      loginHome: "/h",
      promptViaStdin: true,
    });
    expect(command.args.some((a) => a.startsWith("-p"))).toBe(false);
    expect(command).toMatchObject({ input: "long", env: { HOME: "/h" } });
  });
});

test("a failover copies the conversation database and its WAL, not a stale -shm", async () => {
  const from = path.join(box.dir, "from");
  const to = path.join(box.dir, "to");
  const { events } = await turn("copy", { scenario: "text", text: "hi" });
  const id = ofType(events, "session")[0]!.sessionId;
  await fs.cp(path.join(box.dir, "copy", "home"), from, { recursive: true });
  const conv = (home: string) => path.join(home, ".gemini", "antigravity-cli", "conversations");
  await fs.mkdir(conv(to), { recursive: true });
  await fs.writeFile(path.join(conv(to), `${id}.db-shm`), "stale");
  await copyAgySession({ fromHome: from, toHome: to, sessionId: id });
  expect((await fs.readdir(conv(to))).sort()).toEqual([`${id}.db`, `${id}.db-wal`]);
  expect(await fs.readFile(path.join(conv(to), `${id}.db-wal`), "utf8")).toContain('"prompt":"go"');
  await expect(copyAgySession({ fromHome: from, toHome: to, sessionId: "nope" })).rejects.toMatchObject({
    kind: "not_found",
  });
});

test("sign-in: `agy models` answers for a signed-in login and says so for a signed-out one", async () => {
  for (const signedIn of [true, false]) {
    const s = await agyScript(path.join(box.dir, `models-${signedIn}`, "s.json"), { signedIn });
    const env = { ...box.env, FAKE_AGY_SCRIPT: s.file };
    const identity = await agyHarness.identity(FAKE_AGY, env, box.home, localRunner);
    expect(identity.signedIn).toBe(signedIn);
  }
});

test("sandbox: agy reaches its Google backend and OAuth, not every googleapis.com host", () => {
  expect(agyHarness.sandbox.hosts).toEqual([
    "daily-cloudcode-pa.googleapis.com",
    "cloudcode-pa.googleapis.com",
    "oauth2.googleapis.com",
    "accounts.google.com",
  ]);
});
