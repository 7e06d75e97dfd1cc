import fs from "node:fs";
import path from "node:path";
import type { Clock } from "../../src/core/foundation/time-words.js";

/**
 * Sets the `clock` setting in this test file's own `~/.offrun/config.json` (OFFRUN_HOME, which
 * isolate-env.ts makes per file), so times read "16:50" or "4:50 PM" whatever the machine's locale.
 * Call before the first time is written: a process keeps the setting for 30 s.
 */
export function pinClock(clock: Clock): void {
  const home = process.env.OFFRUN_HOME!;
  fs.mkdirSync(home, { recursive: true });
  const file = path.join(home, "config.json");
  const current: unknown = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, "utf8")) : {};
  fs.writeFileSync(file, JSON.stringify({ ...(current as object), clock }));
}
