import { Command, CommanderError } from "commander";
import { fail, offrunVersion, type GlobalOptions } from "./output.js";

/**
 * The `offrun` command line. Every command is a thin face over src/core. Each action's module
 * is imported only when that command runs: a CLI that loads everything up front pays for it
 * in the start-up time of every command.
 */
export async function main(argv: string[]): Promise<void> {
  const program = withGlobals(new Command("offrun"))
    .description("Run coding-agent CLIs side by side, each in its own git worktree.")
    .version(offrunVersion())
    .enablePositionalOptions()
    .showHelpAfterError("(run `offrun --help` for the commands)")
    .action(lazy(() => import("./dashboard.js"), "dashboard"));

  withGlobals(program.command("start").description("start an agent on a task in its own worktree"))
    .argument("[prompt...]", "what the agent should do (- reads it from stdin)")
    .option("--prompt-file <file>", "read the prompt from a file")
    .option("--harness <id>", "which agent CLI (claude, codex)")
    .option("--mode <mode>", "build (default) or plan")
    .option("--name <name>", "agent name (default: made from the prompt)")
    .option("--base <ref>", "branch or commit to start from (default: HEAD)")
    .option("--model <model>", "model to ask the CLI for")
    .option("--wait", "block until the turn ends; exit non-zero if it failed")
    .action(lazy(() => import("./agent-actions.js"), "start"));

  withGlobals(program.command("send").description("send the next message to an agent (same session)"))
    .argument("<agent>")
    .argument("[message...]", "the message (- reads it from stdin)")
    .option("--prompt-file <file>", "read the message from a file")
    .option("--wait", "block until the turn ends; exit non-zero if it failed")
    .action(lazy(() => import("./agent-actions.js"), "send"));

  withGlobals(program.command("stop").description("stop the agent's running turn"))
    .argument("<agent>")
    .action(lazy(() => import("./agent-actions.js"), "stop"));

  withGlobals(program.command("ls").description("agents of this project")).action(
    lazy(() => import("./view-actions.js"), "ls"),
  );

  withGlobals(program.command("show").description("an agent's conversation, status, worktree and branch"))
    .argument("<agent>")
    .action(lazy(() => import("./view-actions.js"), "show"));

  withGlobals(program.command("diff").description("changed files and the diff against the agent's base"))
    .argument("<agent>")
    .option("--stat", "only the list of changed files")
    .action(lazy(() => import("./view-actions.js"), "diff"));

  withGlobals(
    program.command("merge").description("commit the agent's work on its branch, merge it into the current branch"),
  )
    .argument("<agent>")
    .action(lazy(() => import("./view-actions.js"), "merge"));

  withGlobals(program.command("discard").description("remove the agent's worktree (refuses to lose unmerged work)"))
    .argument("<agent>")
    .option("--force", "discard even uncommitted or unmerged work")
    .option("--delete-branch", "also delete the agent's branch")
    .action(lazy(() => import("./view-actions.js"), "discard"));

  const companion = program.command("companion").description("the background process that runs agents");
  companion
    .command("run")
    .description("run the companion in the foreground")
    .option("--verbose", "also print its log to stderr")
    .action(lazy(() => import("./companion-actions.js"), "run"));
  for (const [name, description] of [
    ["start", "start the companion in the background"],
    ["status", "is the companion running?"],
    ["stop", "stop the companion (running turns are stopped)"],
  ] as const) {
    withGlobals(companion.command(name).description(description)).action(
      lazy(() => import("./companion-actions.js"), name),
    );
  }

  program.exitOverride((error: CommanderError) => {
    process.exit(error.exitCode === 0 ? 0 : 2);
  });
  await program.parseAsync(argv);
}

/** Adds --project and --json to a command. */
function withGlobals(command: Command): Command {
  return command
    .option("--project <dir>", "the project (default: the git repository around the current folder)")
    .option("--json", "print JSON for scripts");
}

type Action = (...args: never[]) => Promise<void>;

/** An action that loads its module when the command runs, and turns any failure into a clear message and exit code. */
function lazy<M extends Record<K, Action>, K extends string>(load: () => Promise<M>, name: K) {
  return async (...args: unknown[]) => {
    const options =
      args.find(
        (a): a is GlobalOptions => typeof a === "object" && a !== null && !Array.isArray(a) && !(a instanceof Command),
      ) ?? {};
    try {
      const module = await load();
      await (module[name] as unknown as (...a: unknown[]) => Promise<void>)(...args);
    } catch (error) {
      fail(error, options.json);
    }
  };
}
