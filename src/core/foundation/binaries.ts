import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { runCommand } from "./process.js";

/** The variable that names a harness's binary explicitly: `OFFRUN_CLAUDE_BIN`, `OFFRUN_MY_AGENT_BIN`. */
export function binaryOverrideVariable(harnessId: string): string {
  return `OFFRUN_${harnessId.toUpperCase().replace(/[^A-Z0-9]/g, "_")}_BIN`;
}

/** Where CLIs are installed when PATH does not say (npm, bun, volta, Homebrew, the system), in search order. */
export function installFolders(env: NodeJS.ProcessEnv = process.env): string[] {
  const home = env.HOME || os.homedir();
  return [
    path.join(home, ".local", "bin"),
    path.join(home, ".npm-global", "bin"),
    path.join(home, ".bun", "bin"),
    path.join(home, ".volta", "bin"),
    "/opt/homebrew/bin",
    "/usr/local/bin",
    "/usr/bin",
  ];
}

/**
 * Finds an agent CLI's binary. A process started by Raycast or launchd does not get the login
 * shell's PATH, so after the explicit setting and PATH we look in the usual install folders.
 */
export async function locateBinary(
  harnessId: string,
  binaryName: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string | undefined> {
  const override = env[binaryOverrideVariable(harnessId)];
  if (override) return (await isExecutable(override)) ? path.resolve(override) : undefined;
  // A custom agent declared with an absolute command: that file or nothing.
  if (path.isAbsolute(binaryName)) return (await isExecutable(binaryName)) ? binaryName : undefined;
  const dirs = [...(env.PATH ?? "").split(path.delimiter).filter(Boolean), ...installFolders(env)];
  for (const dir of dirs) {
    const candidate = path.join(dir, binaryName);
    if (await isExecutable(candidate)) return candidate;
  }
  return undefined;
}

/**
 * An agent CLI's binary (locateBinary) and the first line its version command prints; the version
 * is undefined when the CLI is not installed or the command fails, prints nothing or takes over 10 s.
 */
export async function locateBinaryAndVersion(cli: {
  id: string;
  binaryName: string;
  versionArgs: string[];
}): Promise<{ binary?: string; version?: string }> {
  const binary = await locateBinary(cli.id, cli.binaryName);
  if (!binary) return {};
  const result = await runCommand({ file: binary, args: cli.versionArgs }, { timeoutMs: 10_000 }).catch(
    () => undefined,
  );
  return { binary, version: result?.stdout.trim().split("\n")[0] || undefined };
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    const stat = await fs.stat(file);
    if (!stat.isFile()) return false;
    await fs.access(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
