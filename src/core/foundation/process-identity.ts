import fs from "node:fs/promises";
import { runCommand } from "./process.js";

/**
 * When a process started, as the system says it (Linux: `starttime` of /proc/<pid>/stat, in clock
 * ticks since boot; elsewhere `ps -o lstart=`): a pid and its start time name one process, where a
 * pid alone can name another once the first has exited. Undefined when no such process runs.
 */
export async function processStartTime(pid: number): Promise<string | undefined> {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  if (process.platform === "linux") {
    const stat = await fs.readFile(`/proc/${pid}/stat`, "utf8").catch(() => undefined);
    if (stat === undefined) return undefined;
    // "pid (comm) state ppid ...": fields after the last ")"; starttime is the 22nd field overall.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[19];
  }
  const ps = await runCommand({ file: "ps", args: ["-o", "lstart=", "-p", String(pid)] }, { timeoutMs: 5_000 });
  const started = ps.stdout.trim();
  return ps.exitCode === 0 && started !== "" ? started : undefined;
}

/** True when `pid` is still the process that started at `startTime` (a record's CLI, not a stranger). */
export async function isSameProcess(pid: number, startTime: string | undefined): Promise<boolean> {
  return startTime !== undefined && (await processStartTime(pid)) === startTime;
}

/** A record's fields once its CLI has ended. */
export const NO_PROCESS = { pid: undefined, pidStartTime: undefined } as const;

/** A record's fields for a spawned CLI: its pid with its start time, so that a record names one process. */
export async function spawned(pid: number | undefined): Promise<{ pid?: number; pidStartTime?: string }> {
  if (pid === undefined) return NO_PROCESS;
  const pidStartTime = await processStartTime(pid);
  return { pid, ...(pidStartTime ? { pidStartTime } : {}) };
}
