import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { grokHarness } from "../../../../src/harnesses/grok/index.js";
import type { Decision, TurnInput } from "../../../../src/harnesses/types.js";
import { testIO } from "../../../helpers/acp-io.js";
import { ofType, turnEnd } from "../../../helpers/events.js";

// Grok Build's live turns (`grok agent stdio`) driven straight through the harness, against the
// fake `grok` of test/fake-grok/, whose every line comes from xAI's published source.

const FAKE_GROK = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../fake-grok/grok.mjs");

let dir: string;
let home: string;
let cwd: string;

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "offrun-grok-acp-"));
  home = path.join(dir, "grok-home");
  cwd = path.join(dir, "work");
  await fs.mkdir(home, { recursive: true });
  await fs.mkdir(cwd, { recursive: true });
  await fs.writeFile(path.join(home, "auth.json"), "{}"); // as `grok login` leaves it
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

async function turn(prompt: string, options: Partial<TurnInput> = {}, decisions: Decision[] = []) {
  const io = testIO({ decisions });
  const input: TurnInput = {
    prompt,
    mode: "build",
    cwd,
    binary: FAKE_GROK,
    env: { PATH: process.env.PATH, HOME: path.join(dir, "home"), TMPDIR: os.tmpdir() },
    loginHome: home,
    ...options,
  };
  await grokHarness.live!.runTurn(input, io);
  return io;
}

const modesSet = async () =>
  (await fs.readFile(path.join(home, "fake-grok.modes"), "utf8").catch(() => "")).split("\n").filter(Boolean);

test("a task: the model goes before `stdio`, Build sets the mode `default`, usage comes from _meta.usage", async () => {
  const io = await turn("say hello", { model: "grok-build-fast" });
  expect(io.argv[0]!.slice(1)).toEqual(["agent", "-m", "grok-build-fast", "stdio"]);
  expect(turnEnd(io.events)).toMatchObject({ outcome: "completed" });
  expect(ofType(io.events, "text").map((e) => e.text)).toEqual([
    "Hello from fake Grok Build (grok-build-fast). This session has 0 earlier prompts.",
  ]);
  expect(await modesSet()).toEqual(["default"]);
  // _meta.usage counts the 1000 cached tokens in its 1200 input; Offrun's input does not.
  expect(ofType(io.events, "usage")).toEqual([
    { type: "usage", inputTokens: 200, outputTokens: 100, cacheReadTokens: 1000, cacheWriteTokens: 0 },
  ]);
  const session = ofType(io.events, "session")[0]!;
  expect(session.model).toBe("grok-build-fast");
  // The session is where Grok keeps it: sessions/<URL-encoded cwd>/<id>/ (what copySession moves).
  expect(await fs.readdir(path.join(home, "sessions", encodeURIComponent(cwd), session.sessionId))).toEqual(
    expect.arrayContaining(["summary.json", "updates.jsonl"]),
  );
});

test("resume: the next turn reopens the session, which knows the earlier prompt", async () => {
  const first = await turn("say hello");
  const { sessionId } = ofType(first.events, "session")[0]!;
  const second = await turn("say hello again", { resumeSessionId: sessionId });
  expect(ofType(second.events, "session")[0]!.sessionId).toBe(sessionId);
  expect(ofType(second.events, "notice")).toEqual([]);
  // session/resume (Grok offers it) replays nothing, so only the new answer is logged.
  expect(ofType(second.events, "text").map((e) => e.text)).toEqual([
    "Hello from fake Grok Build (grok-build). This session has 1 earlier prompts.",
  ]);
});

test("an edit asks for approval; allowed, the file is written", async () => {
  const io = await turn("create hello.txt", {}, [{ kind: "allow" }]);
  expect(io.requests).toEqual([expect.objectContaining({ kind: "approval", tool: "edit" })]);
  // "allow-once" is chosen, never Grok's session-wide "allow-edits-session".
  expect(io.clientLines.some((l) => l.includes('"optionId":"allow-once"'))).toBe(true);
  expect(await fs.readFile(path.join(cwd, "hello.txt"), "utf8")).toBe("written by fake Grok Build\n");
  expect(turnEnd(io.events).outcome).toBe("completed");
});

test("a denial: the edit is refused, Grok reports the tool failed, and nothing is written", async () => {
  const io = await turn("create hello.txt", {}, [{ kind: "deny" }]);
  expect(io.clientLines.some((l) => l.includes('"optionId":"reject-once"'))).toBe(true);
  expect(ofType(io.events, "tool_result")).toEqual([expect.objectContaining({ isError: true })]);
  expect(ofType(io.events, "text").at(-1)!.text).toBe("I did not create hello.txt.");
  await expect(fs.stat(path.join(cwd, "hello.txt"))).rejects.toThrow();
});

test("a question: x.ai/ask_user_question becomes an Offrun question, and the answer picks the option it names", async () => {
  const io = await turn("ask me which name to use", {}, [{ kind: "answer", text: "notes.md" }]);
  expect(io.requests).toEqual([
    expect.objectContaining({
      kind: "question",
      text: "Which name should the new file have?\n   - notes.md: A Markdown file\n   - notes.txt: A plain text file",
    }),
  ]);
  expect(ofType(io.events, "text").at(-1)!.text).toBe('You answered "notes.md".');
  expect(turnEnd(io.events).outcome).toBe("completed");

  const free = await turn("ask me which name to use", {}, [{ kind: "answer", text: "call it todo.md" }]);
  expect(ofType(free.events, "text").at(-1)!.text).toBe('You answered "Other" (call it todo.md).');
});

test("Planner: the mode `plan` is set, the plan is logged, and Grok is told to stay in plan mode", async () => {
  const io = await turn("plan the notes", { mode: "plan" });
  expect(await modesSet()).toEqual(["plan"]);
  expect(io.requests).toEqual([]); // a Planner turn asks nothing about leaving plan mode
  expect(ofType(io.events, "text").map((e) => e.text)).toEqual([
    "I looked at the project and wrote a plan.",
    "# Plan\n1. Create notes.md with a summary.",
    "Staying in plan mode; nothing was changed.",
  ]);
  await expect(fs.stat(path.join(cwd, "notes.md"))).rejects.toThrow();
});

test("Build: when Grok plans first, leaving plan mode is an approval, and allowed it builds", async () => {
  const io = await turn("plan first, then write the notes", {}, [{ kind: "allow" }, { kind: "allow" }]);
  expect(io.requests.map((r) => [r.kind, r.tool])).toEqual([
    ["approval", "exit_plan_mode"],
    ["approval", "edit"],
  ]);
  expect(io.requests[0]!.text).toBe(
    "Grok Build's plan is ready; allow it to start coding?\n\n# Plan\n1. Create notes.md with a summary.",
  );
  expect(await fs.readFile(path.join(cwd, "notes.md"), "utf8")).toBe("written by fake Grok Build\n");

  const refused = await turn("plan first, then write the notes", {}, [{ kind: "deny", reason: "not yet" }]);
  expect(refused.clientLines.some((l) => l.includes('"outcome":"cancelled","feedback":"not yet"'))).toBe(true);
  expect(ofType(refused.events, "text").at(-1)!.text).toBe("Staying in plan mode; nothing was changed.");
});

test("prompt_complete ends the turn when Grok's answer to session/prompt is lost", async () => {
  await fs.writeFile(path.join(home, "fake-xai.json"), JSON.stringify({ dropPromptAnswer: true }));
  const started = Date.now();
  const io = await turn("say hello");
  expect(turnEnd(io.events)).toMatchObject({ outcome: "completed" });
  expect(ofType(io.events, "text")).toHaveLength(1);
  expect(Date.now() - started).toBeLessThan(20_000); // the 10 s grace, not a hang
}, 30_000);

test("a session left in plan mode: Build sets `default` again, so Grok builds instead of planning", async () => {
  const planned = await turn("plan the notes", { mode: "plan" });
  const { sessionId } = ofType(planned.events, "session")[0]!;
  // A session that stays in plan mode on Grok's side would plan again: Build sets `default` first.
  const built = await turn("go on", { resumeSessionId: sessionId });
  expect(await modesSet()).toEqual(["plan", "default"]);
  expect(built.requests).toEqual([]);
  expect(turnEnd(built.events).outcome).toBe("completed");
});

test("the free tier used up (-32003, subscription:free-usage-exhausted) is a usage limit, without a reset", async () => {
  await fs.writeFile(path.join(home, "fake-xai.json"), JSON.stringify({ freeUsageExhausted: true }));
  const io = await turn("say hello");
  expect(ofType(io.events, "limit_hit")).toEqual([
    {
      type: "limit_hit",
      message:
        "Grok Build's free usage is used up: subscription:free-usage-exhausted: You have used all your free usage.",
    },
  ]);
  expect(turnEnd(io.events).outcome).toBe("limited");
});

test("any other -32003 is a rate limit Offrun retries, with the server's message", async () => {
  await fs.writeFile(path.join(home, "fake-xai.json"), JSON.stringify({ rateLimited: true }));
  const io = await turn("say hello");
  expect(ofType(io.events, "error")).toEqual([
    { type: "error", kind: "rate_limited", message: "Grok Build was rate limited: Rate limit exceeded" },
  ]);
  expect(ofType(io.events, "limit_hit")).toEqual([]);
});

test("a login without auth.json is not signed in, and the error says to run `grok login`", async () => {
  await fs.rm(path.join(home, "auth.json"));
  const io = await turn("say hello");
  expect(ofType(io.events, "error")[0]).toMatchObject({
    kind: "not_logged_in",
    message: expect.stringContaining("Run `grok login` with GROK_HOME set to this login's home"),
  });
  // Offrun tried the cached token first, as Grok's initialize offers it.
  expect(io.clientLines.some((l) => l.includes('"method":"authenticate"') && l.includes("cached_token"))).toBe(true);
});

test("the Stop hook Grok runs at the turn's end is read as a finished turn with its last words", async () => {
  const hookOut = path.join(dir, "hook-payloads.jsonl");
  await fs.mkdir(path.join(home, "hooks"), { recursive: true });
  // Offrun's own hook file, as `offrun hooks install` writes it; its command records the payload here.
  const text = grokHarness.hooks!.add(undefined, ["sh", "-c", `cat >> '${hookOut}'; echo >> '${hookOut}'`], "x");
  await fs.writeFile(grokHarness.hooks!.settingsFile(home), text);
  const io = await turn("say hello");
  const { sessionId } = ofType(io.events, "session")[0]!;
  const payloads = (await fs.readFile(hookOut, "utf8"))
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as unknown);
  // Offrun ends the process after the turn, so only the turn's Stop fired, not the session's end.
  expect(payloads).toHaveLength(1);
  const moment = await grokHarness.hooks!.signal(payloads[0], "2026-12-04T00:00:00.000Z");
  expect(moment).toEqual({
    kind: "finished",
    sessionId,
    eventId: expect.any(String),
    cwd,
    text: "Hello from fake Grok Build (grok-build). This session has 0 earlier prompts.",
    at: "2026-12-04T00:00:00.000Z",
  });
  // The session's end fires one more Stop, with no message: not a second finished turn.
  const end = { hookEventName: "stop", sessionId, cwd, reason: "channel_closed", stopHookActive: false };
  expect(await grokHarness.hooks!.signal(end, "2026-12-04T00:00:01.000Z")).toBeUndefined();
});

test("a sandboxed Grok may reach its model API and its sign-in, from the vendor's endpoints", () => {
  expect(grokHarness.sandbox.hosts).toEqual(["cli-chat-proxy.grok.com", "auth.x.ai", "api.x.ai"]);
});
