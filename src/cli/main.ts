import { COMMAND_ALIASES, COMMANDS } from "./commands.js";
import { lazy } from "./define.js";
import { runProgram } from "./program.js";

/** The whole CLI (build/cli.cjs): every command, the dashboard, and the companion itself. */
export function main(argv: string[]): Promise<void> {
  return runProgram(argv, {
    commands: COMMANDS,
    aliases: COMMAND_ALIASES,
    dashboard: lazy(() => import("./dashboard.js"), "dashboard"),
  });
}
