import { Command, Help, Option } from "commander";
import { fail, type GlobalOptions } from "./output.js";

// What every command definition (commands.ts, quick-commands.ts, and the program in program.ts) is made with.

/** Defines one top-level command (with its subcommands) on the program. */
export type Define = (program: Command) => void;

/** Adds --project and --json to a command. */
export function withGlobals(command: Command): Command {
  return command
    .option("--project <dir>", "the project (default: the git repository around the current folder)")
    .option("--json", "print JSON for scripts");
}

/** withGlobals, and --host for a command that can act on another machine's agents. */
export function withHost(command: Command): Command {
  return withGlobals(command).option(
    "--host <name>",
    "on this host (see offrun hosts); or write the agent as host:agent",
  );
}

/**
 * Help names each command by its name alone: an old name kept as an alias (`accounts`) still
 * works, but help does not offer it beside the new one.
 */
export const helpWithoutAliases: Partial<Help> = {
  subcommandTerm(this: Help, command: Command) {
    return Help.prototype.subcommandTerm.call(this, unaliased(command));
  },
  commandUsage(this: Help, command: Command) {
    return Help.prototype.commandUsage.call(this, unaliased(command));
  },
};

function unaliased(command: Command): Command {
  return Object.create(command, { _aliases: { value: [] } }) as Command;
}

/**
 * `--login <label>`, and `--account <label>`, its name before, kept hidden: scripts and habits that
 * pass it mean the same login (it sets `login`).
 */
export function withLogin(command: Command, description: string, mandatory = false): Command {
  const login = new Option("--login <label>", description);
  return command
    .addOption(mandatory ? login.makeOptionMandatory() : login)
    .addOption(new Option("--account <label>", description).hideHelp())
    .on("option:account", (label: string) => command.setOptionValueWithSource("login", label, "cli"));
}

type Action = (...args: never[]) => Promise<void>;

/**
 * An action that loads its module when the command runs, and turns any failure into a clear message
 * and exit code. Options given before the command (`offrun --json ls`) count as the command's own,
 * which win when both are given.
 */
export function lazy<M extends Record<K, Action>, K extends string>(load: () => Promise<M>, name: K) {
  return async (...args: unknown[]) => {
    const at = args.findIndex(
      (a) => typeof a === "object" && a !== null && !Array.isArray(a) && !(a instanceof Command),
    );
    const command = args.at(-1);
    if (at >= 0 && command instanceof Command && command.parent) {
      args[at] = { ...command.parent.optsWithGlobals(), ...(args[at] as object) };
    }
    const options = (args[at] ?? {}) as GlobalOptions;
    try {
      const module = await load();
      await (module[name] as unknown as (...a: unknown[]) => Promise<void>)(...args);
    } catch (error) {
      fail(error, options.json);
    }
  };
}
