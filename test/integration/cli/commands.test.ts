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
