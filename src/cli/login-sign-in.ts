import fs from "node:fs/promises";
import path from "node:path";
import type { Login } from "../core/foundation/login-model.js";
import { locateBinary } from "../core/foundation/binaries.js";
import { offrunHome, userPaths } from "../core/foundation/paths.js";
import { runCommand, runInteractive } from "../core/foundation/process.js";
import { ensureLoginHome, loginCommand } from "../core/logins/store.js";
import { findHarness } from "../harnesses/registry.js";
import type { Harness } from "../harnesses/types.js";
import { shellQuote } from "../core/foundation/shell-quote.js";

/** `offrun logins add|login`: the CLI's own sign-in for a login, in a Terminal window or as a command to run. */

/** The binary as a person would type it: its bare name when that is what their PATH finds first. */
async function typedBinary(harness: Harness, binary: string | undefined): Promise<string> {
  if (!binary) return harness.binaryName;
  const pathDirs = (process.env.PATH ?? "").split(path.delimiter).filter(Boolean);
  const firstOnPath = await locateBinary(harness.id, harness.binaryName, {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
  });
  const isFirst = firstOnPath === binary && pathDirs.includes(path.dirname(binary));
  return isFirst && path.basename(binary) === harness.binaryName ? harness.binaryName : binary;
}

/** A person signs in at the CLI's prompt (a browser round trip, a code to paste): time enough, not forever. */
const SIGN_IN_MS = 30 * 60_000;

interface LoginResult {
  /** The command line that signs in to this login. */
  command: string;
  /** True when the sign-in ran: in this terminal, or in a Terminal window opened for it (macOS). */
  opened: boolean;
  message: string;
  /** The CLI is not installed: nothing could be opened. */
  notInstalled?: boolean;
}

/**
 * Starts the CLI's own sign-in for a login: in this terminal when there is one, else in a new
 * Terminal window on macOS, else it prints the command. Offrun only sets the login's home; the
 * CLI talks to its vendor and stores what it gets.
 */
export async function openLogin(login: Login): Promise<LoginResult> {
  const harness = await findHarness(login.harness);
  await ensureLoginHome(login);
  const binary = await locateBinary(harness.id, harness.binaryName);
  const spec = loginCommand(login, harness, binary ?? harness.binaryName);
  const words = [await typedBinary(harness, binary), ...spec.args].map(shellQuote);
  const assignments = Object.entries(spec.env).map(([k, v]) => `${k}=${shellQuote(v)}`);
  const command = [...assignments, ...words].join(" ");
  const who = `login '${login.label}' of ${harness.displayName}`;
  if (!binary) {
    return {
      command,
      opened: false,
      notInstalled: true,
      message: `${harness.displayName} is not installed (${harness.installHint}). Then sign in to ${who} with:\n  ${command}`,
    };
  }
  // In a terminal (over `ssh -t` from another machine, say): the sign-in runs right here.
  if (process.stdin.isTTY && process.stdout.isTTY) {
    const run = await runInteractive(
      { file: binary, args: spec.args, env: { ...process.env, ...spec.env } },
      { timeoutMs: SIGN_IN_MS },
    );
    const ended = run.exitCode === 0 ? "finished" : `ended (${run.message ?? `exit ${run.exitCode}`})`;
    return { command, opened: true, message: `The sign-in to ${who} ${ended}. Check with: offrun logins` };
  }
  if (process.platform !== "darwin") {
    return { command, opened: false, message: `Sign in to ${who} by running, in a terminal:\n  ${command}` };
  }
  // Terminal starts a login shell whose PATH may differ: the script names the binary in full.
  const exec = [binary, ...spec.args].map(shellQuote).join(" ");
  const script = await writeLoginScript(login, harness, [...assignments.map((a) => `export ${a}`), `exec ${exec}`]);
  const opened = await runCommand({ file: "open", args: ["-a", "Terminal", script] }, { timeoutMs: 10_000 });
  if (opened.exitCode !== 0) {
    return { command, opened: false, message: `Could not open Terminal. Sign in to ${who} by running:\n  ${command}` };
  }
  return {
    command,
    opened: true,
    message: `Opened Terminal to sign in to ${who}. Finish there, then check with: offrun logins`,
  };
}

/**
 * Writes the .command file Terminal runs. It goes in the login's folder when Offrun made it,
 * else in Offrun's own folder: the user's own homes get no stray files.
 */
async function writeLoginScript(login: Login, harness: Harness, lines: string[]): Promise<string> {
  const dir = login.adopted ? userPaths(offrunHome()).run : login.home;
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, `offrun-login-${harness.id}-${login.label}.command`);
  const text = [
    "#!/bin/sh",
    `# Written by Offrun: signs in to login '${login.label}' of ${harness.displayName} in its own home.`,
    ...lines,
    "",
  ];
  await fs.writeFile(file, text.join("\n"), { mode: 0o700 });
  await fs.chmod(file, 0o700);
  return file;
}
