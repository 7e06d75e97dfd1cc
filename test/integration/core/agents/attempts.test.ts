import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { execa } from "execa";
import { findHarness } from "../../../../src/harnesses/registry.js";
import { claudeProjectFolder } from "../../../../src/harnesses/claude/session-files.js";
import type { Login } from "../../../../src/core/foundation/login-model.js";
import type { EventDraft, TurnEndEvent } from "../../../../src/core/foundation/events.js";
import { projectConfigSchema, type AgentRecord } from "../../../../src/core/foundation/model.js";
import { localRunner } from "../../../../src/core/foundation/runner.js";
import type { LoginAttempt, QuotaEvent } from "../../../../src/core/agents/attempts.js";
import { CONTINUATION_PROMPT, runTurnChain } from "../../../../src/core/agents/turn-chain.js";
import type { TurnContext, TurnResult } from "../../../../src/core/agents/turn.js";
import { addLogin, findLogin } from "../../../../src/core/logins/store.js";
import { hasTurn } from "../../../../src/core/logins/home-use.js";
import { LoginPicker } from "../../../../src/core/logins/picker.js";
import { cachedSignIns, markSignedOut, signInKey } from "../../../../src/core/logins/sign-in.js";
import { loginKey, readLedger, recordObserved } from "../../../../src/core/quota/ledger.js";
import { runReviewer, type ReviewerAttempt, type ReviewerRequest } from "../../../../src/core/review/runner.js";
import { agentRecord } from "../../../helpers/records.js";

// Agent turns (the session moves, the turn goes on) and reviews (a restart) are two policies over
// one attempt engine (src/core/agents/attempts.ts): stub work stands in for the CLI's turn, over
// real logins, quota ledger and sign-in cache in this file's OFFRUN_HOME (isolate-env.ts).
// Before the engine each had its own loop: a review marked a reset named to the minute as past.

const HOUR = 3_600_000;
const config = projectConfigSchema.parse({});

/** The real picker, counting what is held: a login held twice, or never released, shows here. */
class CountingPicker extends LoginPicker {
  readonly held = new Map<string, number>();
  override hold(login: Login): () => void {
    const release = super.hold(login);
    const key = loginKey(login);
    this.held.set(key, (this.held.get(key) ?? 0) + 1);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.held.set(key, this.held.get(key)! - 1);
      release();
    };
  }
}

/** Logins a, b, c of `harness`, their homes made, the Default login out of the way; b ranks above c. */
async function threeLogins(harness: "claude" | "codex" | "gemini"): Promise<Login[]> {
  const logins: Login[] = [];
  for (const label of ["a", "b", "c"]) {
    const added = await addLogin({ harness, label });
    await fs.mkdir(added.home, { recursive: true });
    logins.push(added);
  }
  await markSignedOut({ harness, label: "default" }, "not part of this test");
  const observedAt = new Date().toISOString();
  for (const [label, usedPercent] of [
    ["b", 20],
    ["c", 60],
  ] as const) {
    const window = { kind: "five_hour", usedPercent, resetsAt: new Date(Date.now() + HOUR).toISOString() };
    await recordObserved({ harness, label }, { windows: [{ ...window, source: "stream", observedAt }], observedAt });
  }
  return logins;
}

const quotaSeen = (usedPercent: number): QuotaEvent => ({
  type: "quota",
  windows: [
    {
      kind: "five_hour",
      usedPercent,
      resetsAt: new Date(Date.now() + HOUR).toISOString(),
      source: "stream",
      observedAt: new Date().toISOString(),
    },
  ],
});
const limitHit = (resetsAt: number): QuotaEvent => ({
  type: "limit_hit",
  message: "usage limit",
  resetsAt: new Date(resetsAt).toISOString(),
});

/** What a stub attempt saw: its login, whether the login was held once and its home marked as in a turn. */
interface Seen {
  label: string;
  prompt: string;
  heldOnce: boolean;
  inTurn: boolean;
}

const seen = (picker: CountingPicker, login: Login, prompt: string): Seen => ({
  label: login.label,
  prompt,
  heldOnce: picker.held.get(loginKey(login)) === 1,
  inTurn: hasTurn(login.home),
});

const nothingHeld = (picker: CountingPicker, logins: Login[]) => {
  expect([...picker.held.values()].every((count) => count === 0)).toBe(true);
  for (const login of logins) expect(hasTurn(login.home)).toBe(false);
};

test("agent turns move the session and go on, reviews restart: one login loop, each login once", async () => {
  // The turn policy: a limited (work done), b not signed in, c completes.
  const claude = await findHarness("claude");
  const logins = await threeLogins("claude");
  const picker = new CountingPicker(process.env);
  const project = await fs.mkdtemp(path.join(os.tmpdir(), "attempts-"));
  await execa("git", ["init", "-q", project], { timeout: 30_000 }); // the turns' memory lives in a repository
  const record: AgentRecord = agentRecord(project, "author", { account: "a", sessionId: "s-1" });
  await fs.mkdir(record.worktree, { recursive: true });
  const sessionFile = (home: string) => path.join(home, "projects", claudeProjectFolder(record.worktree), "s-1.jsonl");
  await fs.mkdir(path.dirname(sessionFile(logins[0]!.home)), { recursive: true });
  await fs.writeFile(sessionFile(logins[0]!.home), `${JSON.stringify({ message: "add sum.ts" })}\n`);
  const log: EventDraft[] = [];
  const turns: (Seen & { continuation: boolean; briefedOpen: boolean })[] = [];
  const limitA = Date.now() + 2 * HOUR;
  const turn = async (ctx: TurnContext): Promise<TurnResult> => {
    const login = await findLogin(claude, record.account);
    expect(ctx.loginHome).toBe(login.home);
    expect(ctx.env.CLAUDE_CONFIG_DIR).toBe(login.home);
    turns.push({
      ...seen(picker, login, ctx.prompt),
      continuation: ctx.continuation === true,
      briefedOpen: ctx.memory?.briefing !== undefined,
    });
    const at = new Date().toISOString();
    const ended = (end: Omit<TurnEndEvent, "type" | "at" | "turn">): TurnEndEvent => ({
      type: "turn_end",
      at,
      turn: 1,
      ...end,
    });
    if (login.label === "a") {
      await ctx.observe(quotaSeen(90));
      await ctx.observe(limitHit(limitA));
      const end = ended({ outcome: "limited", reason: "usage limit" });
      return { end, status: "limited", rateLimited: false, progressed: true };
    }
    if (login.label === "b") {
      await ctx.observe(quotaSeen(95));
      const end = ended({ outcome: "failed", reason: "Not logged in" });
      return { end, status: "failed", rateLimited: false, progressed: false, errorKind: "not_logged_in" };
    }
    await ctx.observe(quotaSeen(30));
    return { end: ended({ outcome: "completed" }), status: "idle", rateLimited: false, progressed: true };
  };
  const end = await runTurnChain(
    {
      record,
      prompt: "add sum.ts",
      binary: "claude",
      config,
      signal: new AbortController().signal,
      env: process.env,
      runner: localRunner,
      logins: picker,
      log: async (_turn, event) => void log.push(event),
      update: async (changes) => void Object.assign(record, changes),
    },
    turn,
  );

  expect(end.outcome).toBe("completed");
  // The session moved to each next login, and the turn went on there from where it stopped.
  expect(turns.map((t) => [t.label, t.prompt, t.continuation])).toEqual([
    ["a", "add sum.ts", false],
    ["b", CONTINUATION_PROMPT, true],
    ["c", CONTINUATION_PROMPT, true],
  ]);
  expect(turns.every((t) => t.heldOnce && t.inTurn)).toBe(true);
  // A failover's turn is handed its memory, opened while the session moved, as a new session on
  // its login (with the briefing); the first turn opens its own.
  expect(turns.map((t) => t.briefedOpen)).toEqual([false, true, true]);
  expect(log.filter((e) => e.type === "account_switch").map((e) => [e.from, e.to])).toEqual([
    ["a", "b"],
    ["b", "c"],
  ]);
  for (const login of logins.slice(1)) await expect(fs.stat(sessionFile(login.home))).resolves.toBeTruthy();
  expect(record).toMatchObject({ account: "c", status: "idle" });
  nothingHeld(picker, logins);
  const ledger = await readLedger();
  const used = (label: string) => ledger.accounts[`claude/${label}`]?.observed?.windows[0]?.usedPercent;
  expect([used("a"), used("b"), used("c")]).toEqual([90, 95, 30]);
  expect(ledger.accounts["claude/a"]?.limitedUntil).toBe(new Date(limitA).toISOString());
  const signIns = await cachedSignIns(logins);
  expect(logins.map((l) => signIns.get(signInKey(l))?.state)).toEqual(["signed-in", "signed-out", "signed-in"]);

  // The review policy: a limited (its reset named as a minute that began 20 s ago), b limited, c
  // reviews; each attempt starts the review again from its prompt.
  const codex = await findHarness("codex");
  const reviewLogins = await threeLogins("codex");
  const reviewPicker = new CountingPicker(process.env);
  const reviews: Seen[] = [];
  const limitB = Date.now() + 3 * HOUR;
  const minuteA = Date.now() - 20_000;
  const once = async (request: ReviewerRequest, attempt: LoginAttempt): Promise<ReviewerAttempt> => {
    reviews.push(seen(reviewPicker, attempt.login, request.prompt));
    expect(attempt.env.CODEX_HOME).toBe(attempt.login.home);
    const label = attempt.login.label;
    await attempt.observe(quotaSeen({ a: 91, b: 92, c: 40 }[label]!));
    const end = { type: "turn_end", reason: "usage limit" } as const;
    if (label === "a") await attempt.observe(limitHit(minuteA));
    if (label === "b") await attempt.observe(limitHit(limitB));
    if (label !== "c") return { end: { ...end, outcome: "limited" }, denials: [] };
    return { end: { type: "turn_end", outcome: "completed" }, finalText: '{"verdict":"approve"}', denials: [] };
  };
  const run = await runReviewer(reviewRequest(codex, reviewLogins[0]!, reviewPicker), once);

  expect(reviews.map((r) => [r.label, r.prompt])).toEqual([
    ["a", "review the diff"],
    ["b", "review the diff"],
    ["c", "review the diff"],
  ]);
  expect(reviews.every((r) => r.heldOnce && r.inTurn)).toBe(true);
  expect(run).toMatchObject({
    end: { outcome: "completed" },
    failedOver: ["a", "b"],
    finalText: '{"verdict":"approve"}',
  });
  expect(run.login.label).toBe("c");
  nothingHeld(reviewPicker, reviewLogins);
  const after = await readLedger();
  const reviewUsed = (label: string) => after.accounts[`codex/${label}`]?.observed?.windows[0]?.usedPercent;
  expect([reviewUsed("a"), reviewUsed("b"), reviewUsed("c")]).toEqual([91, 92, 40]);
  // A reset named to the minute is the minute's end, for reviews too (they marked it in the past).
  expect(after.accounts["codex/a"]?.limitedUntil).toBe(new Date(minuteA + 60_000).toISOString());
  expect(after.accounts["codex/b"]?.limitedUntil).toBe(new Date(limitB).toISOString());
});

test("a login is released when the work on it throws, and no login is tried twice", async () => {
  const gemini = await findHarness("gemini");
  const logins = await threeLogins("gemini");
  const picker = new CountingPicker(process.env);
  const first = logins[0]!;
  const tried: string[] = [];
  const failing = async (_request: ReviewerRequest, attempt: LoginAttempt): Promise<ReviewerAttempt> => {
    tried.push(attempt.login.label);
    throw new Error("the CLI could not start");
  };
  await expect(runReviewer(reviewRequest(gemini, first, picker), failing)).rejects.toThrow("could not start");
  expect(tried).toEqual(["a"]);
  nothingHeld(picker, logins);

  // Every login limited: each is tried once, and the review says none has room.
  const limited = async (_request: ReviewerRequest, attempt: LoginAttempt): Promise<ReviewerAttempt> => {
    tried.push(attempt.login.label);
    await attempt.observe(limitHit(Date.now() + HOUR));
    return { end: { type: "turn_end", outcome: "limited", reason: "usage limit" }, denials: [] };
  };
  tried.length = 0;
  const run = await runReviewer(reviewRequest(gemini, first, picker), limited);
  expect(tried).toEqual(["a", "b", "c"]);
  expect(run.end.reason).toContain("Every Gemini CLI login is limited");
  expect(run.failedOver).toEqual(["a", "b"]);
  nothingHeld(picker, logins);
});

function reviewRequest(harness: ReviewerRequest["harness"], login: Login, logins: LoginPicker): ReviewerRequest {
  return {
    harness,
    binary: "codex",
    login,
    cwd: os.tmpdir(),
    prompt: "review the diff",
    outputSchema: { schema: {}, file: path.join(os.tmpdir(), "schema.json") },
    config,
    logins,
    signal: new AbortController().signal,
    runner: localRunner,
    record: async () => undefined,
  };
}
