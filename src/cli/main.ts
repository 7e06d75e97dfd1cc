import { Command, CommanderError } from "commander";
import { registerAgentCommands, action, withGlobals } from "./agent-commands.js";
import { registerCompanionCommands } from "./companion-commands.js";
import { offrunVersion } from "./context.js";
import { dashboard } from "./dashboard.js";

/** The `offrun` command line. Every command is a thin face over src/core. */
export async function main(argv: string[]): Promise<void> {
  const program = withGlobals(new Command("offrun"))
    .description("Run coding-agent CLIs side by side, each in its own git worktree.")
    .version(offrunVersion())
    .enablePositionalOptions()
    .showHelpAfterError("(run `offrun --help` for the commands)")
    .action(action(dashboard));
  registerAgentCommands(program);
  registerCompanionCommands(program);
  program.exitOverride((error: CommanderError) => {
    process.exit(error.exitCode === 0 ? 0 : 2);
  });
  await program.parseAsync(argv);
}
