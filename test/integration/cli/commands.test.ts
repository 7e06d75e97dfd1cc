import { COMMANDS } from "../../../src/cli/commands.js";
import { makeSandbox, runOffrun, type Sandbox } from "../../helpers/offrun.js";

// main.ts defines only the command a run names (commands.ts); help and typos still see them all.

let box: Sandbox;
beforeAll(async () => {
  box = await makeSandbox("offrun-cmds-");
});
afterAll(async () => {
  await box.cleanup();
});

const offrun = (...args: string[]) => runOffrun(args, { env: box.env, cwd: box.dir });

test("offrun --help lists every command but the hidden hook", async () => {
  const help = await offrun("--help");
  expect(help).toSucceed();
  const listed = [...help.stdout.matchAll(/^ {2}([a-z-]+)\b/gm)].map((m) => m[1]);
  expect(listed).toEqual(expect.arrayContaining(Object.keys(COMMANDS).filter((c) => c !== "hook")));
  expect(listed).not.toContain("hook");
});

test("a command's own help, a subcommand, a typo and the version", async () => {
  const ls = await offrun("ls", "--help");
  expect(ls.stdout).toContain("Usage: offrun ls [options]");
  expect(ls.stdout).toContain("--host <name>");
  const add = await offrun("hosts", "add", "--help");
  expect(add.stdout).toContain("Usage: offrun hosts add [options] <name> <destination>");
  const typo = await offrun("lss");
  expect(typo.exitCode).toBe(2);
  expect(typo.stderr).toContain("did you mean ls?");
  // An option before the command is the command's: every command is defined, and this one runs.
  const status = await offrun("--json", "companion", "status");
  expect(status.exitCode).toBe(3);
  expect(JSON.parse(status.stdout)).toEqual({ running: false });
  expect((await offrun("--version")).stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
});

// One word for logins: `offrun logins` and `--login`; the old names still work, unadvertised.
// Broke before: help offered `accounts` and `--account`, and `logins`/`--login` were unknown.
test("help says logins and --login, not accounts and --account", async () => {
  const help = await offrun("--help");
  expect(help.stdout).toMatch(/^ {2}logins \[options\]/m);
  expect(help.stdout).not.toContain("accounts");
  for (const command of [["start"], ["handoff"], ["switch"], ["review"], ["hooks", "status"]]) {
    const own = await offrun(...command, "--help");
    expect(own.stdout).toContain("--login <label>");
    expect(own.stdout).not.toContain("--account");
  }
  expect((await offrun("accounts", "--help")).stdout).toContain("Usage: offrun logins [options] [command]");
  expect((await offrun("acounts")).stderr).toContain("did you mean logins?");
});

// Broke before the aliases: `offrun accounts …` and `--account` were unknown to a CLI that says logins.
test("offrun accounts and --account still work, as the same command and option", async () => {
  expect(await offrun("accounts", "add", "claude", "work", "--no-login")).toSucceed();
  const labels = async (...args: string[]) => {
    const listed = JSON.parse((await offrun(...args, "--json")).stdout) as { accounts: { label: string }[] };
    return listed.accounts.map((login) => login.label);
  };
  expect(await labels("logins")).toEqual(expect.arrayContaining(["default", "work"]));
  expect(await labels("accounts")).toEqual(await labels("logins"));
  const hooksOn = async (...args: string[]) => {
    const rows = JSON.parse((await offrun("hooks", "status", "--harness", "claude", ...args, "--json")).stdout);
    return (rows as { account: string }[]).map((row) => row.account);
  };
  expect(await hooksOn("--login", "work")).toEqual(["work"]);
  expect(await hooksOn("--account", "work")).toEqual(["work"]);
  // `switch` requires the login: the old option satisfies it too (the agent is what is missing here).
  const switched = await offrun("switch", "nobody", "--account", "work", "--project", box.dir);
  expect(switched.stderr).not.toContain("required option");
  expect((await offrun("switch", "nobody")).stderr).toContain("required option '--login <label>' not specified");
  await offrun("companion", "stop");
});
