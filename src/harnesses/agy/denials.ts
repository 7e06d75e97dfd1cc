import type { ParsedEvent } from "../../core/foundation/events.js";

/**
 * Print mode cannot ask, so agy refuses what would need a prompt by itself and says so on stderr
 * (1.1.5 and 1.1.28 word it the same way; 1.1.5 prefixed "jetski: no output produced — "):
 *   a tool required the "command" permission that headless mode cannot prompt for, so it was
 *   auto-denied. Add an allow-rule under permissions.allow in settings.json (e.g. command(<target>)).
 * The quoted word is agy's permission class (command, mcp, read_url, …), not a tool name: it is
 * all the message says about what was refused.
 */
const AUTO_DENIED = /required the "([^"]+)" permission that headless mode cannot prompt for, so it was auto-denied/g;

/** A tool step's own error text when the permission layer refused it (1.1.12: "User denied permission …"). */
export const DENIED_STEP = /denied permission|auto-denied|permission denied/i;

/** One denial per auto-deny message in agy's stderr. */
export function stderrDenials(stderr: string): ParsedEvent[] {
  return [...stderr.matchAll(AUTO_DENIED)].map((m) => ({
    type: "denial" as const,
    tool: m[1]!,
    input: { permission: m[1]! },
  }));
}

/** What to tell the user about a turn agy ended because it auto-denied something. */
export function autoDeniedAdvice(stderr: string): string | undefined {
  const line = stderr.split("\n").find((l) => /auto-denied/.test(l));
  if (!line) return undefined;
  return `agy refused a tool it cannot ask about in headless mode: ${line.trim()} Allow it under permissions.allow in the login's ~/.gemini/antigravity-cli/settings.json to let agy use it.`;
}
