import type { Login } from "../../src/core/foundation/login-model.js";
import { pickLogin, type Candidate } from "../../src/core/logins/ranking.js";
import type { QuotaWindow } from "../../src/core/foundation/events.js";
import { projectConfigSchema } from "../../src/core/foundation/model.js";
import type { LoginReading } from "../../src/core/quota/ledger.js";
import { blockingWindow, expireWindow, headroom } from "../../src/core/quota/pipeline.js";
import { backoffMs } from "../../src/core/agents/backoff.js";
import { claudeHarness } from "../../src/harnesses/claude/index.js";
import { pinClock } from "../helpers/clock.js";

// Times in this file read on a 24-hour clock, whatever the machine's locale.
pinClock("24h");

const now = new Date("2026-11-30T12:00:00Z");
const inHours = (h: number) => new Date(now.getTime() + h * 3600_000).toISOString();

function window(
  kind: string,
  usedPercent: number | undefined,
  resetsInHours = 2,
  status?: QuotaWindow["status"],
): QuotaWindow {
  return {
    kind,
    ...(usedPercent === undefined ? {} : { usedPercent }),
    resetsAt: inHours(resetsInHours),
    ...(status ? { status } : {}),
    source: "test",
    observedAt: now.toISOString(),
  };
}

function candidate(label: string, windows: QuotaWindow[], extra: Partial<LoginReading> = {}): Candidate {
  const login: Login = {
    harness: "claude",
    label,
    home: `/homes/${label}`,
    isDefault: label === "default",
    adopted: false,
    env: {},
  };
  const blocking = blockingWindow(windows);
  return {
    login,
    quota: { harness: "claude", label, windows, attempts: [], ...(blocking ? { blocking } : {}), ...extra },
  };
}

const pick = (candidates: Candidate[], options: Partial<Parameters<typeof pickLogin>[2]> = {}) =>
  pickLogin(claudeHarness, candidates, { inFlight: new Map(), now, ...options });

test("the login with the most room in its blocking window is picked", () => {
  const chosen = pick([candidate("work", [window("five_hour", 70)]), candidate("personal", [window("five_hour", 20)])]);
  expect(chosen.login.label).toBe("personal");
});

test("a full weekly window blocks even when the 5-hour window is nearly empty", () => {
  const weeklyFull = candidate("work", [window("five_hour", 3), window("seven_day", 100, 48, "rejected")]);
  expect(blockingWindow(weeklyFull.quota.windows)?.kind).toBe("seven_day");
  expect(headroom(weeklyFull.quota, now)).toBe(0);
  const chosen = pick([weeklyFull, candidate("personal", [window("five_hour", 60)])]);
  expect(chosen.login.label).toBe("personal");
});

test("a login with unknown quota ranks below one known to have room, and above none", () => {
  expect(pick([candidate("default", []), candidate("work", [window("five_hour", 95)])]).login.label).toBe("work");
  expect(
    pick([candidate("default", []), candidate("work", [window("five_hour", 100, 2, "rejected")])]).login.label,
  ).toBe("default");
});

test("a limited login is refused with when it resets, unless forced", () => {
  const limited = candidate("work", [window("five_hour", 40)], { limitedUntil: inHours(3) });
  expect(() => pick([limited])).toThrow(
    /Every Claude Code login is limited\. The first resets (Sun |Mon |Tue |Wed |Thu |Fri |Sat )?\d\d:\d\d\./,
  );
  expect(pick([limited], { force: true }).login.label).toBe("work");
});

test("concurrent starts spread over logins instead of all going to the emptiest", () => {
  const candidates = [candidate("work", [window("five_hour", 30)]), candidate("personal", [window("five_hour", 20)])];
  const inFlight = new Map<string, number>();
  const labels: string[] = [];
  for (let i = 0; i < 4; i++) {
    const chosen = pick(candidates, { inFlight });
    labels.push(chosen.login.label);
    const key = `claude/${chosen.login.label}`;
    inFlight.set(key, (inFlight.get(key) ?? 0) + 1);
  }
  expect(new Set(labels)).toEqual(new Set(["work", "personal"]));
});

test("a login just back from a limit takes one turn at a time", () => {
  const back = candidate("work", [window("five_hour", 0)], { recovering: true });
  const other = candidate("personal", [window("five_hour", 50)]);
  expect(pick([back, other]).login.label).toBe("work");
  expect(pick([back, other], { inFlight: new Map([["claude/work", 1]]) }).login.label).toBe("personal");
});

test("every login above 90% comes with a warning", () => {
  const chosen = pick([candidate("work", [window("five_hour", 93)]), candidate("personal", [window("five_hour", 97)])]);
  expect(chosen.warning).toMatch(/above 90%/);
  expect(pick([candidate("work", [window("five_hour", 50)])]).warning).toBeUndefined();
});

test("a failover never goes back to a login it already tried", () => {
  const candidates = [candidate("work", [window("five_hour", 10)]), candidate("personal", [window("five_hour", 50)])];
  expect(pick(candidates, { exclude: new Set(["claude/work"]) }).login.label).toBe("personal");
  expect(() => pick(candidates, { exclude: new Set(["claude/work", "claude/personal"]) })).toThrow(/limited/);
});

test("a window whose reset has passed reads 0%", () => {
  const old = window("five_hour", 88, -1, "rejected");
  expect(expireWindow(old, now)).toMatchObject({ kind: "five_hour", usedPercent: 0, status: "allowed" });
  expect(expireWindow(window("five_hour", 88, 1), now).usedPercent).toBe(88);
});

test("backoff grows exponentially, is capped, and its jitter keeps it under the cap plus 20%", () => {
  const retry = { attempts: 5, baseSeconds: 2, maxSeconds: 30 };
  expect(backoffMs(1, retry, () => 0)).toBe(2000);
  expect(backoffMs(3, retry, () => 0)).toBe(8000);
  expect(backoffMs(10, retry, () => 0)).toBe(30_000);
  expect(backoffMs(10, retry, () => 0.999)).toBeLessThanOrEqual(36_000);
});

test("a retry cap that, with its jitter, reaches the turn timeout is refused where the settings are read", () => {
  const bad = projectConfigSchema.safeParse({ turnTimeoutMinutes: 1, retry: { maxSeconds: 55 } });
  expect(bad.success).toBe(false);
  expect(bad.error?.issues[0]?.path).toEqual(["retry", "maxSeconds"]);
  expect(projectConfigSchema.safeParse({ turnTimeoutMinutes: 1, retry: { maxSeconds: 40 } }).success).toBe(true);
});
