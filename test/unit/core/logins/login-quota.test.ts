import type { LoginReading } from "../../../../src/core/quota/ledger.js";
import { viewLoginQuota, windowPaceText } from "../../../../src/core/logins/login-quota.js";
import { pinClock } from "../../../helpers/clock.js";

// Times in this file read on a 24-hour clock, whatever the machine's locale.
pinClock("24h");

const NOW = Date.parse("2026-11-20T12:00:00Z");
const at = (minutes: number) => new Date(NOW + minutes * 60_000).toISOString();
const window = (usedPercent: number) => ({
  kind: "five_hour",
  usedPercent,
  resetsAt: at(120),
  source: "stream",
  observedAt: at(-1),
});
const quota = (overrides: Partial<LoginReading> = {}): LoginReading => ({
  harness: "claude",
  label: "work",
  windows: [],
  attempts: [],
  ...overrides,
});

test("a signed-out login reads 'signed out', whatever its last reading said", () => {
  const view = viewLoginQuota(quota({ windows: [window(30)], blocking: window(30) }), NOW, { signIn: "signed-out" });
  expect(view).toMatchObject({ signedOut: true, summary: "signed out" });
  expect(view.pace).toBeUndefined();
});

test("no window on a limits-only CLI says so; on a percent CLI it is unknown", () => {
  expect(viewLoginQuota(quota(), NOW, { coverage: "limits" }).summary).toBe("no usage data: limits only");
  expect(viewLoginQuota(quota(), NOW, { coverage: "percent" }).summary).toBe("quota unknown");
});

test("the summary carries the pace when the login's recent use gives one", () => {
  const running = quota({ windows: [window(70)], blocking: window(70), pace: { runsOutAt: at(45) } });
  const view = viewLoginQuota(running, NOW);
  expect(view.summary).toMatch(/^5-Hour 70% used · resets \d\d:\d\d · out ~\d\d:\d\d at this pace$/);
  const lasting = quota({ windows: [window(20)], blocking: window(20), pace: { lastsPastReset: true } });
  expect(viewLoginQuota(lasting, NOW).pace).toBe("lasts past its reset");
  // A limited login has no pace to tell: it is out already.
  const limited = quota({ ...running, limitedUntil: at(60) });
  expect(viewLoginQuota(limited, NOW)).toMatchObject({
    limited: true,
    summary: expect.stringMatching(/^limited until/),
  });
  expect(viewLoginQuota(limited, NOW).pace).toBeUndefined();
});

test("the quota table writes a window's pace as a multiple, on every window whose length its kind gives", () => {
  // 2 of 5 hours gone, 56% used; 1 of 2 hours gone, 50% used; a month has no fixed length.
  expect(windowPaceText({ kind: "five_hour", usedPercent: 56, resetsAt: at(180) }, NOW)).toBe("1.4×");
  expect(windowPaceText({ kind: "window_120m", usedPercent: 50, resetsAt: at(60) }, NOW)).toBe("1.0×");
  expect(windowPaceText({ kind: "monthly", usedPercent: 50, resetsAt: at(60) }, NOW)).toBeUndefined();
});
