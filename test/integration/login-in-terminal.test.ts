import fs from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { shellLine } from "../../src/core/foundation/shell-quote.js";
import { makeSandbox, OFFRUN_BIN, runOffrun, type Sandbox } from "../helpers/offrun.js";

// `offrun accounts login` run in a terminal (as `ssh -t devbox -- offrun accounts login …` from
// another machine runs it) starts the CLI's own sign-in right there, in the login's home, with
// the terminal's input reaching it. `script` gives the command a real pseudo-terminal.

let box: Sandbox;
beforeAll(async () => {
  box = await makeSandbox("offrun-tty-login-");
});
afterAll(async () => {
  await box.cleanup();
});

test("in a terminal, the sign-in runs there, in the login's home, and reads what the user types", async () => {
  const seen = path.join(box.dir, "seen.txt");
  // Stands in for Claude Code's `auth login`: it says where it runs and asks for a code.
  const claude = path.join(box.dir, "bin", "claude");
  await fs.mkdir(path.dirname(claude), { recursive: true });
  await fs.writeFile(
    claude,
    [
      "#!/bin/sh",
      `echo "args=$*" > ${shellLine([seen])}`,
      `echo "home=$CLAUDE_CONFIG_DIR" >> ${shellLine([seen])}`,
      "printf 'Paste the code: '",
      "read code",
      `echo "code=$code" >> ${shellLine([seen])}`,
      "",
    ].join("\n"),
    { mode: 0o755 },
  );
  const env = { ...box.env, OFFRUN_CLAUDE_BIN: claude };
  expect(await runOffrun(["logins", "add", "claude", "work", "--no-login"], { env })).toSucceed();

  const login = shellLine([process.execPath, OFFRUN_BIN, "logins", "login", "claude", "work"]);
  const run = await execa("script", ["-q", "-e", "-c", login, "/dev/null"], {
    env,
    extendEnv: false,
    input: "4711-code\n",
    reject: false,
    timeout: 60_000,
  });
  expect(run.exitCode).toBe(0);
  expect(run.stdout).toContain("Paste the code:");
  expect(run.stdout).toContain("The sign-in to login 'work' of Claude Code finished");
  const lines = (await fs.readFile(seen, "utf8")).trim().split("\n");
  expect(lines).toEqual([
    "args=auth login",
    `home=${path.join(box.offrunHome, "accounts", "claude", "work")}`,
    "code=4711-code",
  ]);

  // Without a terminal (a script, Raycast) it says what to run instead, as before.
  const piped = await runOffrun(["logins", "login", "claude", "work"], { env });
  expect(piped).toSucceed();
  expect(piped.stdout).toContain("Sign in to login 'work' of Claude Code by running, in a terminal:");
}, 120_000);
