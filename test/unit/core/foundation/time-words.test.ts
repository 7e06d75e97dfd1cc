import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildSync } from "esbuild";
import { execa } from "execa";
import { PROJECT_ROOT } from "../../../helpers/offrun.js";
import {
  clockSetting,
  clockTime,
  limitedUntilText,
  localeClock,
  resetsText,
  userClock,
} from "../../../../src/core/foundation/time-words.js";

// One quota had five spellings: "resets 12/7/2026, 4:23:36 PM", "limited until 12/7/2026, 4:23:36 PM",
// "resets 2026-12-07T16:23:36.000Z", "21:00". Every face now writes a time through this module.

let root: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "offrun-time-words-"));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

// Times are local. Jest's process.env is a copy, so TZ cannot be changed in here: these tests build
// local times in whatever zone the test runs in, and the zone test below runs a Node of its own.
// Tuesday 7 July 2026, 10:00 local.
const NOW = new Date(2026, 6, 7, 10, 0).getTime();
const local = (day: number, hour: number, minute = 0) => new Date(2026, 6, day, hour, minute).toISOString();

test("en-US writes a 12-hour clock and en-GB a 24-hour one, from Intl's hour cycle", () => {
  expect(localeClock("en-US")).toBe("12h");
  expect(localeClock("en-GB")).toBe("24h");
  expect(clockTime(local(7, 16, 50), NOW, localeClock("en-US"))).toBe("4:50 PM");
  expect(clockTime(local(7, 16, 50), NOW, localeClock("en-GB"))).toBe("16:50");
  expect(clockTime(local(7, 0, 5), NOW, "12h")).toBe("12:05 AM");
  expect(clockTime(local(7, 12, 0), NOW, "12h")).toBe("12:00 PM");
});

test("a time today is only the time; another day this week names the day; later ones the local date", () => {
  expect(clockTime(local(7, 23, 30), NOW, "24h")).toBe("23:30");
  expect(clockTime(local(8, 9, 0), NOW, "24h")).toBe("Wed 09:00");
  expect(clockTime(local(8, 9, 0), NOW, "12h")).toBe("Wed 9:00 AM");
  expect(clockTime(local(6, 22, 0), NOW, "24h")).toBe("Mon 22:00");
  expect(clockTime(local(20, 9, 0), NOW, "24h")).toBe("2026-07-20 09:00");
});

test("the same instant reads in the zone Offrun runs in, with the local date", async () => {
  const bundle = path.join(root, "time-words.mjs");
  buildSync({
    entryPoints: [path.join(PROJECT_ROOT, "src/core/foundation/time-words.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    outfile: bundle,
    logLevel: "silent",
  });
  const script = `const { clockTime } = await import(${JSON.stringify(bundle)});
    const now = Date.parse("2026-07-20T12:00:00Z");
    console.log([clockTime("2026-07-20T15:50:00Z", now, "24h"), clockTime("2026-07-20T15:50:00Z", now, "12h"), clockTime("2026-07-30T23:30:00Z", now, "24h")].join("|"));`;
  const inZone = async (TZ: string) =>
    (await execa(process.execPath, ["--input-type=module", "-e", script], { env: { TZ }, timeout: 20_000 })).stdout;
  expect(await inZone("Europe/London")).toBe("16:50|4:50 PM|2026-07-31 00:30");
  // 23:30 UTC on the 30th is the evening of the 30th in New York: the date is the local one, not UTC's.
  expect(await inZone("America/New_York")).toBe("11:50|11:50 AM|2026-07-30 19:30");
}, 30_000);

test("limited until and resets read alike everywhere, never as ISO", () => {
  expect(limitedUntilText(local(7, 16, 50), NOW, "24h")).toBe("limited until 16:50");
  expect(limitedUntilText(undefined, NOW, "24h")).toBe("limited until its reset");
  expect(resetsText(local(9, 16, 23), NOW, "12h")).toBe("resets Thu 4:23 PM");
});

test("the clock setting in config.json overrides the locale, and is read again when the file changes", () => {
  const env = { OFFRUN_HOME: root };
  expect(clockSetting(env)).toBe("auto");
  fs.writeFileSync(path.join(root, "config.json"), JSON.stringify({ clock: "12h", notifications: {} }));
  expect(clockSetting(env)).toBe("12h");
  expect(userClock(env, NOW)).toBe("12h");
  fs.writeFileSync(path.join(root, "config.json"), JSON.stringify({ clock: "24h" }));
  // Kept briefly (the companion formats often), then read again.
  expect(userClock(env, NOW + 1_000)).toBe("12h");
  expect(userClock(env, NOW + 60_000)).toBe("24h");
});

test("a clock setting that is not one Offrun knows, or a broken file, leaves it to the locale", () => {
  const env = { OFFRUN_HOME: root };
  fs.writeFileSync(path.join(root, "config.json"), JSON.stringify({ clock: "25h" }));
  expect(clockSetting(env)).toBe("auto");
  fs.writeFileSync(path.join(root, "config.json"), "{ not json");
  expect(clockSetting(env)).toBe("auto");
  expect(userClock(env, NOW + 120_000)).toBe(localeClock());
});
