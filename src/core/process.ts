import { execa } from "execa";
import { OffrunError } from "./errors.js";
import { signalGroup } from "./pids.js";

/** A command as a file and an argv array: never a shell string. */
export interface Command {
  file: string;
  args: string[];
  cwd?: string;
  /** The complete environment of the child (callers merge with process.env themselves). */
  env?: NodeJS.ProcessEnv;
  /** Text written to the child's stdin, which is then closed (a prompt too long for argv). */
  input?: string;
}

export interface RunOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Cap on captured stdout/stderr, in bytes. */
  maxBuffer?: number;
  input?: string;
}

export interface RunResult {
  exitCode: number | undefined;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  failed: boolean;
}

const FORCE_KILL_AFTER_MS = 2_000;

/** Runs a short command to completion; never throws for a non-zero exit, only for a missing binary. */
export async function runCommand(command: Command, options: RunOptions = {}): Promise<RunResult> {
  const result = await execa(command.file, command.args, {
    cwd: command.cwd,
    env: command.env,
    extendEnv: command.env === undefined,
    stdin: options.input === undefined ? "ignore" : "pipe",
    input: options.input,
    timeout: options.timeoutMs ?? 60_000,
    cancelSignal: options.signal,
    forceKillAfterDelay: FORCE_KILL_AFTER_MS,
    maxBuffer: options.maxBuffer ?? 10_000_000,
    reject: false,
    stripFinalNewline: false,
  });
  if (result.failed && !result.timedOut && result.exitCode === undefined && result.code === "ENOENT") {
    throw new OffrunError("not_installed", `${command.file} was not found.`, { cause: result });
  }
  return {
    exitCode: result.exitCode,
    stdout: String(result.stdout ?? ""),
    stderr: String(result.stderr ?? ""),
    timedOut: result.timedOut,
    failed: result.failed,
  };
}

export interface StreamOptions {
  /** Whole run limit. */
  timeoutMs: number;
  /** Kill when no output arrives for this long (CLIs that retry silently). */
  idleTimeoutMs: number;
  /** Gets every stdout line; returning false says the line was no progress (a retry notice), so the idle clock keeps running. */
  onLine: (line: string) => boolean | void;
  onStderr?: (chunk: string) => void;
  onSpawn?: (pid: number | undefined) => void;
  signal?: AbortSignal;
}

export interface StreamResult {
  exitCode: number | undefined;
  signal: string | undefined;
  /** Why Offrun ended the process, if it did. */
  killedBecause?: "timeout" | "idle" | "cancelled";
  stderrTail: string;
  spawnError?: string;
}

const STDERR_TAIL_BYTES = 8_000;

/**
 * Runs a long process (an agent turn) with stdin closed, hands every stdout line to `onLine`
 * as it arrives, and ends the whole process group on timeout, idle or cancel.
 */
export async function streamCommand(command: Command, options: StreamOptions): Promise<StreamResult> {
  const child = execa(command.file, command.args, {
    cwd: command.cwd,
    env: command.env,
    extendEnv: command.env === undefined,
    // Closed stdin: several CLIs wait for EOF before they start. With input, EOF follows it.
    ...(command.input === undefined ? { stdin: "ignore" as const } : { input: command.input }),
    detached: true, // own process group, so a stop ends the CLI's children too
    reject: false,
    buffer: false,
    forceKillAfterDelay: FORCE_KILL_AFTER_MS,
  });
  options.onSpawn?.(child.pid);

  let killedBecause: StreamResult["killedBecause"];
  let stderrTail = "";
  let pending = "";
  const killTree = (why: NonNullable<StreamResult["killedBecause"]>) => {
    if (killedBecause) return;
    killedBecause = why;
    signalGroup(child.pid, "SIGTERM");
    setTimeout(() => signalGroup(child.pid, "SIGKILL"), FORCE_KILL_AFTER_MS).unref();
  };

  let idleTimer = setTimeout(() => killTree("idle"), options.idleTimeoutMs);
  const resetIdle = () => {
    clearTimeout(idleTimer);
    idleTimer = setTimeout(() => killTree("idle"), options.idleTimeoutMs);
  };
  const totalTimer = setTimeout(() => killTree("timeout"), options.timeoutMs);
  const onAbort = () => killTree("cancelled");
  if (options.signal?.aborted) onAbort();
  options.signal?.addEventListener("abort", onAbort);

  child.stdout?.setEncoding("utf8");
  child.stdout?.on("data", (chunk: string) => {
    pending += chunk;
    let newline = pending.indexOf("\n");
    while (newline >= 0) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      if (line.trim() !== "" && options.onLine(line) !== false) resetIdle();
      newline = pending.indexOf("\n");
    }
  });
  child.stderr?.setEncoding("utf8");
  // stderr does not count as progress: CLIs log their endless reconnect attempts there.
  child.stderr?.on("data", (chunk: string) => {
    stderrTail = (stderrTail + chunk).slice(-STDERR_TAIL_BYTES);
    options.onStderr?.(chunk);
  });

  const result = await child;
  clearTimeout(idleTimer);
  clearTimeout(totalTimer);
  options.signal?.removeEventListener("abort", onAbort);
  if (pending.trim() !== "") options.onLine(pending);
  // The CLI may have left children in its group (a dev server it started): end them too.
  signalGroup(child.pid, "SIGTERM");

  const spawnError = result.failed && result.exitCode === undefined && !result.signal ? result.shortMessage : undefined;
  return { exitCode: result.exitCode, signal: result.signal, killedBecause, stderrTail, spawnError };
}
