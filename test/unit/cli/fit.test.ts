import { cut, fitColumns, screenWidth, wrap } from "../../../src/cli/fit.js";
import { table } from "../../../src/cli/format.js";

// The one width rule of the CLI's screens: how wide, and how text is made to fit.

test("COLUMNS decides when set; else a terminal's width; a file or a pipe has no limit", () => {
  expect(screenWidth({ COLUMNS: "80" }, { isTTY: false })).toBe(80);
  expect(screenWidth({ COLUMNS: "80" }, { isTTY: true, columns: 200 })).toBe(80);
  expect(screenWidth({}, { isTTY: true, columns: 120 })).toBe(120);
  expect(screenWidth({}, { isTTY: false })).toBe(Infinity);
  expect(screenWidth({ COLUMNS: "wide" }, { isTTY: false })).toBe(Infinity);
});

test("a cut ends in … and never splits a character made of two code units", () => {
  expect(cut("abcdef", 4)).toBe("abc…");
  expect(cut("abc", 4)).toBe("abc");
  expect(cut("ab😀cd", 4)).toBe("ab😀…");
});

test("the widest column gives first, none below its header or eight characters", () => {
  expect(fitColumns([6, 60, 10], ["NAME", "WHO", "HOME"], 50)).toEqual([6, 30, 10]);
  expect(fitColumns([6, 60, 40], ["NAME", "WHO", "HOME"], 50)).toEqual([6, 20, 20]);
  expect(fitColumns([6, 60], ["NAME", "A-LONG-HEADER"], 10)).toEqual([6, 13]);
});

test("a table fits its width, indent included; without a limit every character stays", () => {
  const rows = [["claude", "x".repeat(100)]];
  const narrow = table(["CLI", "HOME"], rows, { indent: "  ", width: 40 }).split("\n");
  expect(narrow.map((l) => l.length)).toEqual([14, 40]);
  expect(narrow[1]).toMatch(/^ {2}claude {2}x+…$/);
  expect(table(["CLI", "HOME"], rows, { width: Infinity })).toContain("x".repeat(100));
});

test("prose wraps at spaces, each line after the indent", () => {
  expect(wrap("one two three four", 10, "  ")).toEqual(["  one two", "  three", "  four"]);
  expect(wrap("short", 10)).toEqual(["short"]);
});
