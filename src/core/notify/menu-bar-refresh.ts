import os from "node:os";
import { describeError } from "../foundation/errors.js";
import { runCommand } from "../foundation/process.js";
import { MENU_BAR_REFRESH_LINK, raycastIsInstalled } from "./deeplink.js";

/** `open -g` returns once Launch Services has the URL; a hung one is not waited on longer. */
const OPEN_TIMEOUT_MS = 5_000;

/**
 * Asks Raycast to run the menu bar command now, in the background (`open -g`, so no window takes
 * the focus): an agent that starts needing the user shows in the menu bar within seconds, not at
 * its next minute. macOS with Raycast only; elsewhere, and when it fails, the interval still
 * refreshes it, and a failure is said in the companion's log.
 */
export async function refreshMenuBar(
  log: (line: string) => void,
  options: { platform?: NodeJS.Platform; home?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<void> {
  const platform = options.platform ?? process.platform;
  if (!raycastIsInstalled(platform, options.home ?? os.homedir())) return;
  const run = await runCommand(
    { file: "open", args: ["-g", MENU_BAR_REFRESH_LINK], ...(options.env ? { env: options.env } : {}) },
    { timeoutMs: OPEN_TIMEOUT_MS },
  ).catch((error: unknown) => ({ exitCode: undefined, stderr: describeError(error) }));
  if (run.exitCode !== 0) log(`menu bar: could not ask Raycast to refresh it (${run.stderr.trim() || "open failed"})`);
}
