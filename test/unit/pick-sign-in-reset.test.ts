import type { Login } from "../../src/core/foundation/login-model.js";
import { pickLogin, type Candidate } from "../../src/core/logins/ranking.js";
import type { QuotaWindow } from "../../src/core/foundation/events.js";
import type { LoginReading } from "../../src/core/quota/ledger.js";
import { blockingWindow } from "../../src/core/quota/pipeline.js";
import { LONGEST_WAIT_MS, planResetWait, RESET_JITTER_MS } from "../../src/core/agents/reset-wait.js";
import type { SignInState } from "../../src/core/logins/sign-in.js";
import { claudeHarness } from "../../src/harnesses/claude/index.js";
import { isOffrunError } from "../../src/core/foundation/errors.js";

// The picker asks whether a login can run at all (sign-in), keeps a login's reserve, and prefers
// room that resets soon; the wait plan when every login is limited trusts the CLI's reset time.

const now = new Date("2026-11-30T12:00:00Z");
const inHours = (h: number) => new Date(now.getTime() + h * 3600_000).toISOString();

function candidate(
  label: string,
  used: number | undefined,
  options: { signIn?: SignInState; resetsInHours?: number; reserve?: number; quota?: Partial<LoginReading> } = {},
): Candidate {
  const windows: QuotaWindow[] =
    used === undefined
      ? []
      : [
          {
            kind: "five_hour",
            usedPercent: used,
            resetsAt: inHours(options.resetsInHours ?? 4),
            source: "test",
            observedAt: now.toISOString(),
          },
        ];
  const login: Login = {
    harness: "claude",
    label,
    home: `/homes/${label}`,
    isDefault: label === "default",
    adopted: false,
    env: {},
    ...(options.reserve ? { reservePercent: options.reserve } : {}),
  };
  const blocking = blockingWindow(windows);
  return {
    login,
    quota: { harness: "claude", label, windows, attempts: [], ...(blocking ? { blocking } : {}), ...options.quota },
    ...(options.signIn
      ? { signIn: { state: options.signIn, source: "status", checkedAt: now.toISOString(), note: "test" } }
      : {}),
  };
}

const pick = (candidates: Candidate[], force = false) =>
  pickLogin(claudeHarness, candidates, { inFlight: new Map(), now, force });

test("a signed-out login is never picked, even when it looks emptiest", () => {
  const chosen = pick([
    candidate("default", 0, { signIn: "signed-out" }),
    candidate("beta", 60, { signIn: "signed-in" }),
  ]);
  expect(chosen.login.label).toBe("beta");
  expect(chosen.ranking.find((r) => r.label === "default")?.skipped).toMatch(/signed out/);
});

// What went wrong once: unknown quota everywhere, and the tie went to the Default login that was not signed in.
test("with no quota known anywhere, a signed-in login beats the Default one whose sign-in is unknown", () => {
  const chosen = pick([
    candidate("default", undefined, { signIn: "unknown" }),
    candidate("beta", undefined, { signIn: "signed-in" }),
  ]);
  expect(chosen.login.label).toBe("beta");
});

test("unknown sign-in is usable, ranked below signed-in logins", () => {
  expect(pick([candidate("gw", 0, { signIn: "unknown" })]).login.label).toBe("gw");
  const chosen = pick([candidate("gw", 0, { signIn: "unknown" }), candidate("work", 70, { signIn: "signed-in" })]);
  expect(chosen.login.label).toBe("work");
});

test("when only signed-out logins are left, the error says how to sign in, as not_logged_in", () => {
  let caught: unknown;
  try {
    pick([candidate("default", 0, { signIn: "signed-out" }), candidate("alpha", 0, { signIn: "signed-out" })]);
  } catch (error) {
    caught = error;
  }
  expect(isOffrunError(caught, "not_logged_in")).toBe(true);
  expect((caught as Error).message).toContain("offrun logins login claude default");
});

test("a login below its reserve is passed by, and used again when forced", () => {
  const candidates = [candidate("work", 85, { reserve: 20 }), candidate("personal", 95)];
  expect(pick(candidates).login.label).toBe("personal");
  expect(pick(candidates).ranking.find((r) => r.label === "work")?.skipped).toBe("below its 20% reserve");
  expect(() => pick([candidate("work", 85, { reserve: 20 })])).toThrow(/kept in reserve: work/);
  expect(pick([candidate("work", 85, { reserve: 20 })], true).login.label).toBe("work");
});

test("between logins with similar room, the one that resets sooner is picked; much more room still wins", () => {
  const soon = candidate("soon", 50, { resetsInHours: 0.5 });
  const late = candidate("late", 45, { resetsInHours: 4.5 });
  expect(pick([late, soon]).login.label).toBe("soon");
  const roomy = candidate("roomy", 20, { resetsInHours: 4.5 });
  expect(pick([roomy, soon]).login.label).toBe("roomy");
});

describe("the wait when every login is limited", () => {
  const limited = (label: string, hours: number) =>
    candidate(label, 100, { signIn: "signed-in", quota: { limitedUntil: inHours(hours) } });

  test("goes on just after the earliest reset, with jitter, on the login that resets first", () => {
    const plan = planResetWait([limited("work", 3), limited("personal", 1)], {
      harnessName: "Claude Code",
      resetGiven: true,
      lastLogin: "work",
      now,
      random: () => 0.5,
    });
    expect(plan.login).toBe("personal");
    const late = Date.parse(plan.at!) - Date.parse(inHours(1));
    expect(late).toBeGreaterThanOrEqual(RESET_JITTER_MS.min);
    expect(late).toBeLessThanOrEqual(RESET_JITTER_MS.max);
    expect(plan.message).toMatch(/Resumes .* on personal, when its limit resets/);
  });

  test("says it backs off when the CLI named no reset time", () => {
    const plan = planResetWait([limited("work", 1)], {
      harnessName: "Codex",
      resetGiven: false,
      lastLogin: "work",
      now,
    });
    expect(plan.at).toBeDefined();
    expect(plan.message).toMatch(/gave no reset time, so Offrun backs off/);
  });

  test("does not wait for a reset years away, and says why", () => {
    const plan = planResetWait([limited("work", (LONGEST_WAIT_MS / 3600_000) * 100)], {
      harnessName: "Claude Code",
      resetGiven: true,
      now,
    });
    expect(plan.at).toBeUndefined();
    expect(plan.message).toMatch(/more than 8 days away/);
  });

  test("does not wait on a signed-out login's reset, nor on a reset in the past", () => {
    const out = candidate("out", 100, { signIn: "signed-out", quota: { limitedUntil: inHours(1) } });
    const past = candidate("past", 100, { quota: { limitedUntil: inHours(-1) } });
    const plan = planResetWait([out, past], { harnessName: "Claude Code", resetGiven: true, now });
    expect(plan.at).toBeUndefined();
    expect(plan.message).toMatch(/none has a reset time ahead/);
  });
});

// Broke in CI: logins added in their own homes and ~/.claude never made; a tie between unknowns
// went to the Default login, which was not signed in, and cost the failover a whole turn.
test("a Default login whose home was never made ranks below an added login nobody has checked yet", () => {
  const neverUsed = candidate("default", undefined);
  neverUsed.signIn = { state: "unknown", source: "home", checkedAt: now.toISOString(), note: "never used" };
  expect(pick([neverUsed, candidate("solo", undefined)]).login.label).toBe("solo");
  // Still usable when it is all there is: unknown is not signed out.
  expect(pick([neverUsed]).login.label).toBe("default");
});

// Broke in CI: a reset seconds away passed while the failover tried a signed-out login, and no
// wait was planned at all.
test("a limit whose reset passed during the failover is due now: the wait is only the jitter", () => {
  const plan = planResetWait([candidate("solo", undefined)], {
    harnessName: "Claude Code",
    resetGiven: true,
    lastLogin: "default",
    lastLimit: { login: "solo", until: new Date(now.getTime() - 1000).toISOString() },
    now,
    random: () => 0,
  });
  expect(plan).toMatchObject({ login: "solo", at: new Date(now.getTime() + RESET_JITTER_MS.min).toISOString() });
});
