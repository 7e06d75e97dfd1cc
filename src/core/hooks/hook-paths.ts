import path from "node:path";

/*
 * Shared by the hook entry and the companion. Its own module because the hook entry must load
 * nothing heavy (no zod, no registry).
 */

/**
 * The argument that tells `offrun hook` where Offrun's home is, as `--offrun-home=<dir>`: the CLI
 * that runs the hook has its own environment, without our OFFRUN_HOME. One word with "=" so that
 * Codex, which appends the payload as the last argument, leaves it in place.
 */
export const HOME_ARGUMENT = "--offrun-home=";

/** Where the hook appends payloads and the companion reads them. */
export function hookInboxFile(offrunHome: string): string {
  return path.join(offrunHome, "inbox", "hooks.jsonl");
}
