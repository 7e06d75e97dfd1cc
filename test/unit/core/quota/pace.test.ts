import { addReading, HISTORY_POINTS, paceOf, windowPace, type PaceReading } from "../../../../src/core/quota/pace.js";
import { windowLengthMs } from "../../../../src/core/quota/quota-window.js";

const T0 = Date.parse("2026-11-20T12:00:00Z");
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();
const reading = (minutes: number, usedPercent: number, resetsInMinutes = 300, kind = "five_hour"): PaceReading => ({
  at: at(minutes),
  usedPercent,
  kind,
  resetsAt: at(resetsInMinutes),
});
const build = (...readings: PaceReading[]) => readings.reduce<PaceReading[]>((h, r) => addReading(h, r), []);

describe("paceOf", () => {
  test("a steady rate gives the moment the window runs out", () => {
    // 10% every 10 minutes from 40% at minute 20: 100% at minute 80.
    const pace = paceOf(build(reading(0, 20), reading(10, 30), reading(20, 40)), T0);
    expect(pace).toEqual({ runsOutAt: at(80) });
  });

  test("a rate that reaches 100% only after the reset says the window lasts past it", () => {
    const pace = paceOf(build(reading(0, 10, 60), reading(30, 12, 60)), T0);
    expect(pace).toEqual({ lastsPastReset: true });
  });

  test("no pace from one reading, from under five minutes of readings, or from a use that does not grow", () => {
    expect(paceOf(build(reading(0, 20)), T0)).toBeUndefined();
    expect(paceOf(build(reading(0, 20), reading(4, 30)), T0)).toBeUndefined();
    expect(paceOf(build(reading(0, 20), reading(30, 20)), T0)).toBeUndefined();
    expect(paceOf([], T0)).toBeUndefined();
  });

  test("no pace for a full window or one whose reset has passed", () => {
    expect(paceOf(build(reading(0, 50), reading(10, 100)), T0)).toBeUndefined();
    expect(paceOf(build(reading(0, 20, 60), reading(10, 30, 60)), T0 + 61 * 60_000)).toBeUndefined();
  });

  test("the rate is fitted over every reading, so one burst does not decide alone", () => {
    // Flat for 30 minutes, then a 10% jump: fitted, 0.2%/min (out at minute 440), not the last step's 1%/min (120).
    const flat = [0, 10, 20, 30].map((m) => reading(m, 10, 600));
    const pace = paceOf(build(...flat, reading(40, 20, 600)), T0);
    expect(pace).toEqual({ runsOutAt: at(440) });
  });
});

describe("addReading", () => {
  test("a reading after the window reset starts the history over", () => {
    const history = build(reading(0, 80, 30), reading(20, 90, 30), reading(40, 5, 330));
    expect(history).toEqual([reading(40, 5, 330)]);
  });

  test("another window kind (the weekly one became the fuller) starts over", () => {
    const history = build(reading(0, 40), reading(10, 50), reading(20, 60, 5000, "seven_day"));
    expect(history.map((r) => r.kind)).toEqual(["seven_day"]);
  });

  test("keeps two hours and at most the bounded number of readings", () => {
    const many = build(...Array.from({ length: 60 }, (_, i) => reading(i * 3, Math.min(99, i))));
    expect(many).toHaveLength(HISTORY_POINTS);
    expect(Date.parse(many.at(-1)!.at) - Date.parse(many[0]!.at)).toBeLessThanOrEqual(2 * 3600_000);
    const sparse = build(reading(0, 10, 600), reading(100, 20, 600), reading(200, 30, 600));
    expect(sparse.map((r) => r.at)).toEqual([at(100), at(200)]);
  });

  test("the same instant replaces its reading, and a late older one is ignored", () => {
    expect(build(reading(10, 20), reading(10, 25))).toEqual([reading(10, 25)]);
    expect(build(reading(10, 20), reading(5, 15))).toEqual([reading(10, 20)]);
  });
});

describe("a window's pace against its own clock (the PACE column of offrun quota)", () => {
  const FIVE_HOURS = windowLengthMs("five_hour")!;
  const now = Date.parse("2026-11-20T12:00:00Z");
  const resetsIn = (minutes: number) => new Date(now + minutes * 60_000).toISOString();

  test("is the share used over the share of the window gone by", () => {
    // 2 of 5 hours gone (40%), 56% used: 1.4 times as fast as the window allows.
    expect(windowPace({ usedPercent: 56, resetsAt: resetsIn(180) }, FIVE_HOURS, now)?.ratio).toBeCloseTo(1.4);
    expect(windowPace({ usedPercent: 20, resetsAt: resetsIn(180) }, FIVE_HOURS, now)?.ratio).toBeCloseTo(0.5);
    expect(
      windowPace({ usedPercent: 10, resetsAt: resetsIn(0.5 * 7 * 24 * 60) }, windowLengthMs("seven_day"), now)?.ratio,
    ).toBeCloseTo(0.2);
  });

  test("is not told without a percent, a reset, a known length, before the first minutes, or after the reset", () => {
    expect(windowPace({ resetsAt: resetsIn(180) }, FIVE_HOURS, now)).toBeUndefined();
    expect(windowPace({ usedPercent: 50 }, FIVE_HOURS, now)).toBeUndefined();
    expect(windowPace({ usedPercent: 50, resetsAt: resetsIn(180) }, windowLengthMs("monthly"), now)).toBeUndefined();
    expect(windowPace({ usedPercent: 5, resetsAt: resetsIn(299) }, FIVE_HOURS, now)).toBeUndefined();
    expect(windowPace({ usedPercent: 50, resetsAt: resetsIn(-1) }, FIVE_HOURS, now)).toBeUndefined();
  });
});
