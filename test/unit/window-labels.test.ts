import { windowLabel } from "../../src/commands/presenters/menu-bar.js";

// Issue 25, item 5: windows as people name them, not as the CLIs' JSON spells them.
test("quota windows read 5-hour, Weekly, Weekly (Opus), and an unknown one as its name", () => {
  expect(windowLabel("five_hour")).toBe("5-hour");
  expect(windowLabel("seven_day")).toBe("Weekly");
  expect(windowLabel("seven_day_opus")).toBe("Weekly (Opus)");
  expect(windowLabel("window_120m")).toBe("2-hour");
  expect(windowLabel("window_90m")).toBe("90-minute");
  expect(windowLabel("some_new_window")).toBe("some new window");
});
