import fs from "node:fs";
import fsp from "node:fs/promises";
import { userPaths } from "./paths.js";

/** Process ids and groups, without execa: the faces use these and must start fast. */

/** Sends a signal to a whole process group; ignores a group that is already gone. */
export function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // already exited
  }
}

/**
 * True when a process with this pid runs (and is ours to signal). A zombie is not alive: where
 * nothing reaps orphans (PID 1 of some containers), a companion killed with SIGKILL stays a zombie
 * that still answers signal 0, and every face would go on trusting its pid file.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  return !isZombie(pid);
}

/** Linux only (/proc): a process that has exited and waits to be reaped. */
function isZombie(pid: number): boolean {
  if (process.platform !== "linux") return false;
  try {
    // "pid (comm) S ...": the state follows the last ")" (comm may contain spaces or parentheses).
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) === "Z";
  } catch {
    return false;
  }
}

/** The pid of the running companion of this OFFRUN_HOME, or undefined when none runs (its pid file names no live process). */
export async function runningCompanionPid(): Promise<number | undefined> {
  const text = await fsp.readFile(userPaths().pidFile, "utf8").catch(() => "");
  const pid = Number.parseInt(text.trim(), 10);
  return Number.isInteger(pid) && pid > 0 && isAlive(pid) ? pid : undefined;
}
