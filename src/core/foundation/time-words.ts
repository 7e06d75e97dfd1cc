import fs from "node:fs";
import path from "node:path";
import * as z from "zod";
import { once } from "./lazy-schemas.js";
import { offrunHome } from "./paths.js";

/**
 * How every face writes a time of day for people: the terminal, notifications, Raycast and the
 * messages the core writes into the log. JSON keeps ISO times; nothing else shows one.
 *
 *   "16:50" / "4:50 PM"                today, local time
 *   "Tue 16:50" / "Tue 4:50 PM"        another day within the week: the weekday first
 *   "2026-03-20 16:50"                 further off: the local date
 *
 * 12- or 24-hour: the `clock` setting in `~/.offrun/config.json` ("12h", "24h"), else the hour
 * cycle `Intl` gives the locale (en-US 12-hour, en-GB 24-hour).
 */

export const CLOCK_SETTINGS = ["auto", "12h", "24h"] as const;
export type ClockSetting = (typeof CLOCK_SETTINGS)[number];
export type Clock = Exclude<ClockSetting, "auto">;

const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"] as const;
const two = (n: number) => String(n).padStart(2, "0");

/** The locale's own clock, from `Intl`'s hourCycle (h11/h12 are 12-hour). Default: this process's locale. */
export function localeClock(locale?: string): Clock {
  // Costs about 12 ms on its first call in a process (ICU loads its data): only when no setting decides.
  const cycle = new Intl.DateTimeFormat(locale, { hour: "numeric" }).resolvedOptions().hourCycle;
  return cycle === "h11" || cycle === "h12" ? "12h" : "24h";
}

const configSchema = once(() => z.object({ clock: z.enum(CLOCK_SETTINGS).optional() }));

/**
 * The `clock` setting of `~/.offrun/config.json` ("auto" when absent, unreadable or not one of
 * CLOCK_SETTINGS: a bad file is reported by the notifier, which reads the same file).
 */
export function clockSetting(env: NodeJS.ProcessEnv = process.env): ClockSetting {
  let text: string;
  try {
    text = fs.readFileSync(path.join(offrunHome(env), "config.json"), "utf8");
  } catch {
    return "auto";
  }
  try {
    const parsed = configSchema().safeParse(JSON.parse(text));
    return parsed.success ? (parsed.data.clock ?? "auto") : "auto";
  } catch {
    return "auto";
  }
}

/** Read again after this long: the companion lives for days, and a changed setting must reach it. */
const SETTING_TTL_MS = 30_000;
let cached: { file: string; at: number; clock: Clock } | undefined;
let processLocaleClock: Clock | undefined;

/** The clock the user sees: the setting, else this process's locale. Kept briefly per config file. */
export function userClock(env: NodeJS.ProcessEnv = process.env, now = Date.now()): Clock {
  const file = path.join(offrunHome(env), "config.json");
  if (cached && cached.file === file && now - cached.at < SETTING_TTL_MS) return cached.clock;
  const setting = clockSetting(env);
  const clock = setting === "auto" ? (processLocaleClock ??= rememberedLocaleClock(env)) : setting;
  cached = { file, at: now, clock };
  return clock;
}

/**
 * The locale's clock, kept in `~/.offrun/cache/clock.json` under the locale variables it was found
 * with: the menu bar, a process of its own every minute with 30 ms for its work, reads a small file
 * instead of paying ICU's 12 ms each time. A different LANG/LC_* is asked of `Intl` again, and so
 * is everything after a day.
 */
function rememberedLocaleClock(env: NodeJS.ProcessEnv): Clock {
  const key = [env.LC_ALL, env.LC_TIME, env.LANG].join("|");
  const file = path.join(offrunHome(env), "cache", "clock.json");
  try {
    // A day at most: on macOS the system's region, which no variable names, may have changed.
    if (Date.now() - fs.statSync(file).mtimeMs > 86_400_000) throw new Error("stale");
    const kept = JSON.parse(fs.readFileSync(file, "utf8")) as { key?: unknown; clock?: unknown };
    if (kept.key === key && (kept.clock === "12h" || kept.clock === "24h")) return kept.clock;
  } catch {
    // none yet, or unreadable: asked of Intl below
  }
  const clock = localeClock();
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    fs.writeFileSync(file, JSON.stringify({ key, clock }), { mode: 0o600 });
  } catch {
    // a read-only or full disk: the next process asks Intl again
  }
  return clock;
}

/** "16:50" or "4:50 PM". */
export function hourMinute(at: Date, clock: Clock): string {
  if (clock === "24h") return `${two(at.getHours())}:${two(at.getMinutes())}`;
  const hour = at.getHours() % 12 === 0 ? 12 : at.getHours() % 12;
  return `${hour}:${two(at.getMinutes())} ${at.getHours() < 12 ? "AM" : "PM"}`;
}

/** A time of day as people read it (see the top of this file); the date only when not today. */
export function clockTime(iso: string, now: number, clock: Clock = userClock()): string {
  const at = new Date(iso);
  const time = hourMinute(at, clock);
  if (new Date(now).toDateString() === at.toDateString()) return time;
  const days = (at.getTime() - now) / 86_400_000;
  if (days < 6.5 && days > -6.5) return `${WEEKDAYS[at.getDay()]} ${time}`;
  // The local date: toISOString's would be UTC's, a day off for an evening east of Greenwich.
  return `${at.getFullYear()}-${two(at.getMonth() + 1)}-${two(at.getDate())} ${time}`;
}

/** "limited until 16:50": a login (or agent) that cannot run before its reset. */
export function limitedUntilText(iso: string | undefined, now: number, clock: Clock = userClock()): string {
  return iso === undefined ? "limited until its reset" : `limited until ${clockTime(iso, now, clock)}`;
}

/** "resets 16:50": when a limit or a window is over. */
export function resetsText(iso: string, now: number, clock: Clock = userClock()): string {
  return `resets ${clockTime(iso, now, clock)}`;
}
