import { windowLengthMs, windowName, windowText } from "../../../../src/core/quota/quota-window.js";

// Windows as people name them, in title case, not as the CLIs' JSON spells them.
test("quota windows read 5-Hour, 7-Day, 7-Day (Opus), and an unknown one as its words", () => {
  expect(windowName("five_hour")).toBe("5-Hour");
  expect(windowName("seven_day")).toBe("7-Day");
  expect(windowName("seven_day_opus")).toBe("7-Day (Opus)");
  expect(windowName("window_120m")).toBe("2-Hour");
  expect(windowName("window_90m")).toBe("90-Minute");
  expect(windowName("some_new_window")).toBe("Some New Window");
});

// "five_hour 42%" in `show`, "5-Hour 42%" elsewhere: the percent never said it was the share used.
test("a window reads its name, the share used saying so, a middle dot and its local reset; a day first when not today", () => {
  const now = new Date(2026, 2, 2, 18, 0).getTime(); // a Monday, local time
  const at = (days: number, hours: number) => new Date(2026, 2, 2 + days, hours, 0).toISOString();
  expect(windowText({ kind: "five_hour", usedPercent: 23.4, resetsAt: at(0, 21) }, now, "24h")).toBe(
    "5-Hour 23% used · resets 21:00",
  );
  expect(windowText({ kind: "five_hour", usedPercent: 23.4, resetsAt: at(0, 21) }, now, "12h")).toBe(
    "5-Hour 23% used · resets 9:00 PM",
  );
  expect(windowText({ kind: "seven_day", usedPercent: 40, resetsAt: at(1, 9) }, now, "24h")).toBe(
    "7-Day 40% used · resets Tue 09:00",
  );
  expect(windowText({ kind: "seven_day", usedPercent: 40, resetsAt: at(10, 9) }, now, "24h")).toBe(
    "7-Day 40% used · resets 2026-03-12 09:00",
  );
  expect(windowText({ kind: "five_hour" }, now)).toBe("5-Hour use unknown");
});

test("a window's length comes from its kind; a month or an unknown kind has none", () => {
  expect(windowLengthMs("five_hour")).toBe(5 * 3_600_000);
  expect(windowLengthMs("seven_day_opus")).toBe(7 * 86_400_000);
  expect(windowLengthMs("window_90m")).toBe(90 * 60_000);
  expect(windowLengthMs("monthly")).toBeUndefined();
  expect(windowLengthMs("some_new_window")).toBeUndefined();
});
