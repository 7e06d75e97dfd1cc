import { lazy, withGlobals, withHost, withLogin, type Define } from "./define.js";
import { QUICK_COMMANDS } from "./quick-commands.js";

/**
 * Every `offrun` command, each top-level one (with its subcommands) defined by its own function:
 * program.ts defines only the one a run names, since defining all of them (some 200 options) is a
 * few milliseconds of every start. Each action's module is imported only when that command runs.
 * The everyday commands are defined in quick-commands.ts, which their own, smaller bundle holds.
 */

/** Old names of commands, still understood: the command each one means. */
export const COMMAND_ALIASES: Record<string, string> = { accounts: "logins" };

const { start, send, handoff, stop, approve, answer, ls, show, diff, merge, discard } = QUICK_COMMANDS;

export const COMMANDS: Record<string, Define> = {
  start,
  send,
  handoff,
  switch: (program) => {
    withLogin(
      withHost(program.command("switch").description("move an agent to another login of its CLI, session and all")),
      "the login to go on with",
      true,
    )
      .argument("<agent>")
      .option("--force", "even on a login that is limited")
      .action(lazy(() => import("./switch-actions.js"), "switchLogin"));
  },
  review: (program) => {
    withLogin(
      withHost(program.command("review").description("review an agent's work with another login, read-only")),
      "the reviewer's login",
    )
      .argument("<agent>")
      .option("--harness <id>", "the reviewer's CLI (default: the review setting, else another CLI or login)")
      .option("--model <model>", "model to ask the reviewer's CLI for")
      .option("--force", "even on a login that is limited")
      .option("--wait", "block until the review is done and print it; exit non-zero without a verdict")
      .option("--request-fixes", "put a message built from the findings into the agent's draft (implies --wait)")
      .action(lazy(() => import("./review-actions.js"), "review"));
  },
  draft: (program) => {
    withGlobals(program.command("draft").description("the message waiting in an agent's draft (never sent by itself)"))
      .argument("<agent>")
      .action(lazy(() => import("./review-actions.js"), "draft"));
  },
  stop,
  approve,
  answer,
  ls,
  show,
  diff,
  merge,
  discard,
  memory: (program) => {
    const memory = program
      .command("memory")
      .description("project memory: conventions.md, and each agent's plan.md and dead-ends.md");
    withGlobals(memory.command("show").description("print the memory files (all of them, or one agent's)"))
      .argument("[agent]")
      .action(lazy(() => import("./memory-actions.js"), "show"));
    withGlobals(memory.command("edit").description("open conventions.md (and the agent's files) in $EDITOR"))
      .argument("[agent]")
      .action(lazy(() => import("./memory-actions.js"), "edit"));
    withGlobals(memory.command("log").description("every recorded change to the memory, with its diff"))
      .argument("[agent]", "only this agent's changes, and changes to its files")
      .action(lazy(() => import("./memory-actions.js"), "log"));
    withGlobals(memory.command("revert").description("undo one memory change (refuses if later edits conflict)"))
      .argument("<agent>", "the agent whose turn made the change")
      .argument("<change>", "its id, as `offrun memory log` shows it (e.g. m3.1)")
      .action(lazy(() => import("./memory-actions.js"), "revert"));
  },
  quota: (program) => {
    withGlobals(
      program.command("quota").description("quota of every login: each window's use, reset time, source and age"),
    )
      .option("--refresh", "ask every source now instead of using the cached readings")
      .action(lazy(() => import("./quota-actions.js"), "quota"));
  },
  // `offrun accounts`, its name before, is kept as an alias (COMMAND_ALIASES).
  logins: (program) => {
    const logins = withGlobals(
      program
        .command("logins")
        .alias("accounts")
        .description("logins of each agent CLI, each in its own home: who is signed in"),
    ).action(lazy(() => import("./login-actions.js"), "list"));
    withGlobals(logins.command("add").description("add a login with its own home, then sign in with the CLI's login"))
      .argument("<harness>", "which agent CLI (claude, codex)")
      .argument("<label>", "a name for the login: lowercase letters, digits, - and _")
      .option("--home <dir>", "adopt this existing folder as the login's home (never deleted by Offrun)")
      .option("--env <KEY=VALUE...>", "extra environment for the login's processes (a gateway's base URL; no secrets)")
      .option("--no-login", "do not start the sign-in now")
      .action(lazy(() => import("./login-actions.js"), "add"));
    withGlobals(logins.command("login").description("sign in to a login with the CLI's own login, in its home"))
      .argument("<harness>")
      .argument("<label>")
      .action(lazy(() => import("./login-actions.js"), "login"));
    withGlobals(logins.command("rename").description("rename a login (its home and sign-in stay as they are)"))
      .argument("<harness>")
      .argument("<label>")
      .argument("<new-label>")
      .action(lazy(() => import("./login-actions.js"), "rename"));
    withGlobals(logins.command("default").description("the login Start Agent preselects for a CLI (--clear: none)"))
      .argument("<harness>")
      .argument("[label]")
      .option("--clear", "preselect the login with the most headroom again")
      .action(lazy(() => import("./login-actions.js"), "setDefault"));
    withGlobals(
      logins.command("reserve").description("keep a login's last N% of room out of automatic picks (0: none)"),
    )
      .argument("<harness>")
      .argument("<label>")
      .argument("<percent>")
      .action(lazy(() => import("./login-actions.js"), "reserve"));
    withGlobals(logins.command("rm").description("forget a login (its home is kept unless --purge)"))
      .argument("<harness>")
      .argument("<label>")
      .option("--purge", "also delete its home, if Offrun created it")
      .option("--force", "remove it although agents use it (they wait for a login until switched)")
      .action(lazy(() => import("./login-actions.js"), "rm"));
  },
  trust: (program) => {
    withGlobals(
      program
        .command("trust")
        .description("show this repository's settings that run or widen anything; --yes trusts them as they are"),
    )
      .option("--yes", "trust them (asked again when any of them changes)")
      .option("--revoke", "take the trust back")
      .action(lazy(() => import("./trust-actions.js"), "trust"));
  },
  harnesses: (program) => {
    withGlobals(
      program.command("harnesses").description("the agent CLIs Offrun can run: installed?, version, logins, support"),
    ).action(lazy(() => import("./harness-actions.js"), "harnesses"));
  },
  watch: (program) => {
    withGlobals(
      program.command("watch").description("every new event of every agent, live, one line each (until Ctrl-C)"),
    ).action(lazy(() => import("./watch-actions.js"), "watch"));
  },
  companion: (program) => {
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
    companion
      .command("stdio")
      .description("serve this machine's companion on stdin and stdout (what another machine runs over ssh)")
      .action(lazy(() => import("./companion-actions.js"), "stdio"));
    withGlobals(companion.command("install").description("run the companion at login (launchd or systemd user unit)"))
      .option("--print", "show the service file without writing it")
      .action(lazy(() => import("./service-actions.js"), "install"));
    withGlobals(companion.command("uninstall").description("stop the login service and remove its file")).action(
      lazy(() => import("./service-actions.js"), "uninstall"),
    );
  },
  setup: (program) => {
    withGlobals(
      program
        .command("setup")
        .description("install offrun for this user: launcher in ~/.offrun/bin, on PATH, companion at login"),
    )
      .option("--dry-run", "print every file and link it would write, and write nothing")
      .action(lazy(() => import("./setup-actions.js"), "setup"));
  },
  hosts: (program) => {
    const hosts = withGlobals(
      program
        .command("hosts")
        .description("other machines whose agents show here, over ssh: reachable?, version, agents, logins"),
    ).action(lazy(() => import("./host-actions.js"), "hosts"));
    withGlobals(
      hosts.command("add").description("add a host: a Host of ~/.ssh/config, user@host or ssh://user@host:port"),
    )
      .argument("<name>", "its name here, before the ':' in name:agent")
      .argument("<destination>", "where ssh goes")
      .option("--ssh-config <file>", "an ssh config file to use instead of ~/.ssh/config (ssh -F)")
      .option("--offrun <path>", "offrun's path on the host, when its non-interactive shell does not find it")
      .option("--copy-mb <mb>", "the most one agent's copy here may hold (default 256)")
      .option("--folder-mb <mb>", "the most all of its copies here may hold together (default 1024)")
      .action(lazy(() => import("./host-actions.js"), "add"));
    withGlobals(hosts.command("rm").description("forget a host (its agents go on there)"))
      .argument("<name>")
      .action(lazy(() => import("./host-actions.js"), "rm"));
    withGlobals(
      hosts.command("budget").description("how much of a host's chat logs this machine keeps: a copy, and all of them"),
    )
      .argument("<name>")
      .option("--copy-mb <mb>", "the most one agent's copy may hold (default 256)")
      .option("--folder-mb <mb>", "the most all of the host's copies may hold together (default 1024)")
      .action(lazy(() => import("./host-actions.js"), "budget"));
    withGlobals(
      hosts.command("doctor").description("what a host lacks (offrun, git, node, agent CLIs) and how to install it"),
    )
      .argument("<name>")
      .action(lazy(() => import("./host-actions.js"), "doctor"));
  },
  hooks: (program) => {
    const hooks = program
      .command("hooks")
      .description("Offrun's hook in the CLIs' own settings, for sessions started outside Offrun");
    for (const [name, description] of [
      ["install", "add the hook to each login's settings (backed up first)"],
      ["uninstall", "put each settings file back exactly as it was"],
      ["status", "is the hook installed, per login?"],
    ] as const) {
      withLogin(withGlobals(hooks.command(name).description(description)), "only this login")
        .option("--harness <id>", "only this CLI (claude, codex)")
        .option("--force", "uninstall even if the file changed since (the changed file is kept aside)")
        .action(lazy(() => import("./hook-actions.js"), name));
    }
  },
  // What the CLIs run on their hook events: hidden, never fails, prints nothing (see hook-entry.ts).
  hook: (program) => {
    program
      .command("hook", { hidden: true })
      .argument("<harness>")
      .argument("[payload...]")
      .passThroughOptions()
      .allowUnknownOption()
      .action(lazy(() => import("./hook-entry.js"), "hook"));
  },
};
