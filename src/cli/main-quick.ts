import { runProgram } from "./program.js";
import { QUICK_COMMANDS } from "./quick-commands.js";

/**
 * The quick bundle (build/cli-quick.cjs): the everyday commands only (quick-words.ts), and so none
 * of the code of the companion, the CLIs' adapters or the dashboard, which they never load.
 */
export function main(argv: string[]): Promise<void> {
  return runProgram(argv, { commands: QUICK_COMMANDS, aliases: {} });
}
