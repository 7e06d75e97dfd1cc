import { Command } from "commander";
import { fail, type GlobalOptions } from "./output.js";

// What every command definition (commands.ts, and the program in main.ts) is made with.

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
