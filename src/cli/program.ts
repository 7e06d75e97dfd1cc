import { Command, type CommanderError } from "commander";
import * as z from "zod";
import { offrunVersion, print, type GlobalOptions } from "./output.js";
import { helpWithoutAliases, withGlobals, type Define } from "./define.js";
import { unknownCommand } from "./did-you-mean.js";

/** What one bundle of the CLI knows: its commands, and what `offrun` alone shows, if it can. */
export interface Commands {
  commands: Readonly<Record<string, Define>>;
  /** Old names of commands, still understood: the command each one means. */
  aliases: Readonly<Record<string, string>>;
  /** What `offrun` with no command runs (the dashboard), for the bundle that has it. */
  dashboard?: (options: GlobalOptions) => Promise<void>;
}

/**
 * The `offrun` command line, over the commands it is given (main.ts: all of them; main-quick.ts:
 * the everyday ones). Every command is a thin face over src/core. Each action's module is imported
 * only when that command runs: a CLI that loads everything up front pays for it in the start-up
 * time of every command.
 */
export async function runProgram(argv: string[], known: Commands): Promise<void> {
  // A command lives a moment: zod's compiled parsers (new Function per schema) cost more than they save. The companion keeps them.
  z.config({ jitless: argv[2] !== "companion" });
  const program = withGlobals(new Command("offrun"))
    .description("Run coding-agent CLIs side by side, each in its own git worktree.")
    .version(offrunVersion())
    .enablePositionalOptions()
    .configureHelp(helpWithoutAliases)
    .showHelpAfterError("(run `offrun --help` for the commands)")
    // A word that is no command reaches this action: say so, with the nearest command, rather
    // than commander's "too many arguments".
    .argument("[command...]")
    .usage("[options] [command]")
    .action(async (words: string[], options: GlobalOptions) => {
      if (words[0] !== undefined) program.error(unknownCommand(words[0], program), { exitCode: 2 });
      // Only the whole CLI has the dashboard; the quick bundle is never started without a command.
      if (known.dashboard) await known.dashboard(options);
      else program.help();
    });

  // Before the commands are defined: each copies it when made, so that a usage error in any of
  // them (an unknown flag, a missing argument) exits 2, "a command to fix" (docs/cli.md), not 1.
  program.exitOverride((error: CommanderError) => {
    process.exit(error.exitCode === 0 ? 0 : 2);
  });
  for (const define of commandsFor(argv, known)) define(program);
  // A usage error in a command points at that command's own help.
  const pointAtHelp = (command: Command, words: string) => {
    command.showHelpAfterError(`(run \`offrun ${words} --help\` for its usage)`);
    for (const sub of command.commands) pointAtHelp(sub, `${words} ${sub.name()}`);
  };
  for (const command of program.commands) pointAtHelp(command, command.name());
  try {
    await program.parseAsync(argv);
  } finally {
    // Offrun's own files found corrupt and worked around, by this command or by the companion
    // (which may have repaired the file since; problem-register.ts): said after the command's output.
    const [{ stateProblems }, { keptStateProblems }] = await Promise.all([
      import("../core/foundation/state-problems.js"),
      import("../core/foundation/problem-register.js"),
    ]);
    const kept = await keptStateProblems().catch(() => []);
    const lines = new Set([...stateProblems(), ...kept].map((problem) => `offrun: warning: ${problem.message}\n`));
    for (const line of lines) print(process.stderr, line);
  }
}

/**
 * The commands a run needs defined: the one it names first, none for the dashboard or the version,
 * all of them for help and for anything else (a global option before the command, a typo).
 */
function commandsFor(argv: string[], { commands, aliases }: Commands): Define[] {
  const args = argv.slice(2);
  const first = args[0] !== undefined && Object.hasOwn(aliases, args[0]) ? aliases[args[0]] : args[0];
  if (first !== undefined && Object.hasOwn(commands, first)) return [commands[first]!];
  if (args.every((a) => a === "--json" || a === "--version" || a === "-V")) return [];
  return Object.values(commands);
}
