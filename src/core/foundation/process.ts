import { PassThrough, type Readable, type Writable } from "node:stream";
import type { execa as Execa } from "execa";
import { OffrunError } from "./errors.js";
import { holdGroup } from "./lifeline.js";
import { LineSplitter } from "./lines.js";
import { signalGroup } from "./pids.js";
import { FORCE_KILL_AFTER_MS, watchdog, type KilledBecause } from "./watchdog.js";

export { LineSplitter, MAX_LINE_CHARS, OVERSIZED_HEAD_CHARS } from "./lines.js";

/**
 * execa, loaded on the first spawn: its modules take 10 to 15 ms to load, which a command that
 * spawns nothing (`offrun ls`, `offrun start`, which ask the companion) would pay at every start.
 */
let loadedExeca: typeof Execa | undefined;

export async function loadExeca(): Promise<typeof Execa> {
  loadedExeca ??= (await import("execa")).execa;
  return loadedExeca;
}

/** Whether spawnPiped can start a process now, without waiting for loadExeca. */
export const execaLoaded = (): boolean => loadedExeca !== undefined;

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

/** Runs a short command to completion; never throws for a non-zero exit, only for a missing binary. */
export async function runCommand(command: Command, options: RunOptions = {}): Promise<RunResult> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const execa = await loadExeca();
  const child = execa(command.file, command.args, {
    cwd: command.cwd,
    env: command.env,
    extendEnv: command.env === undefined,
    stdin: options.input === undefined ? "ignore" : "pipe",
    input: options.input,
    timeout: timeoutMs,
    cancelSignal: options.signal,
    forceKillAfterDelay: FORCE_KILL_AFTER_MS,
    maxBuffer: options.maxBuffer ?? 10_000_000,
    reject: false,
    stripFinalNewline: false,
    // Its own process group: a child it left behind (a profile's `sleep`, a CLI's helper) keeps
    // stdout open, and killing only the command would leave this waiting past its timeout.
    detached: true,
  });
  const release = holdGroup(child.pid, execa);
  const endGroup = () => {
    signalGroup(child.pid, "SIGTERM");
    setTimeout(() => signalGroup(child.pid, "SIGKILL"), FORCE_KILL_AFTER_MS).unref();
  };
  const timer = setTimeout(endGroup, timeoutMs);
  options.signal?.addEventListener("abort", endGroup, { once: true });
  const result = await child.finally(() => {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", endGroup);
    release();
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
  /** A line over MAX_LINE_CHARS: only its head is kept; `size` is its full length. */
  onOversizedLine?: (head: string, size: number) => void;
  onStderr?: (chunk: string) => void;
  onSpawn?: (pid: number | undefined) => void;
  signal?: AbortSignal;
}

export interface StreamResult {
  exitCode: number | undefined;
  signal: string | undefined;
  /** Why Offrun ended the process, if it did. */
  killedBecause?: KilledBecause;
  stderrTail: string;
  spawnError?: string;
}

const STDERR_TAIL_BYTES = 8_000;
/**
 * Runs a long process (an agent turn) with stdin closed, hands every stdout line to `onLine`
 * as it arrives, and ends the whole process group on timeout, idle or cancel.
 */
export async function streamCommand(command: Command, options: StreamOptions): Promise<StreamResult> {
  const execa = await loadExeca();
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
  const release = holdGroup(child.pid, execa);
  options.onSpawn?.(child.pid);
  const dog = watchdog(child.pid, options);
  const lines = new LineSplitter(
    (line) => {
      if (line.trim() !== "" && options.onLine(line) !== false) dog.progress();
    },
    (head, size) => {
      options.onOversizedLine?.(head, size);
      dog.progress();
    },
  );
  child.stdout?.setEncoding("utf8");
  child.stdout?.on("data", (chunk: string) => lines.push(chunk));
  // stderr does not count as progress: CLIs log their endless reconnect attempts there.
  const stderrTail = keepStderrTail(child, options.onStderr);

  const result = await child;
  dog.stop();
  lines.end();
  const end = ended(child.pid, result, dog, stderrTail());
  release();
  return end;
}

type Child = ReturnType<typeof Execa>;

/** Follows the child's stderr: each chunk goes to `onStderr`, and the last 8 KB are kept. */
function keepStderrTail(child: Child, onStderr?: (chunk: string) => void): () => string {
  let tail = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (chunk: string) => {
    tail = (tail + chunk).slice(-STDERR_TAIL_BYTES);
    onStderr?.(chunk);
  });
  return () => tail;
}

/** After the exit (clocks stopped): ends what the CLI left in its group, and says how the process ended. */
function ended(
  pid: number | undefined,
  result: Awaited<Child>,
  dog: ReturnType<typeof watchdog>,
  stderrTail: string,
): StreamResult {
  // The CLI may have left children in its group (a dev server it started): end them too.
  signalGroup(pid, "SIGTERM");
  const spawnError = result.failed && result.exitCode === undefined && !result.signal ? result.shortMessage : undefined;
  return {
    exitCode: result.exitCode,
    signal: result.signal,
    killedBecause: dog.killedBecause(),
    stderrTail,
    spawnError,
  };
}

export interface PipedProcess {
  stdin: Writable;
  /** stdout in object mode, one whole line (without its "\n") per chunk; an oversized line never arrives here. */
  stdout: Readable;
  /** Resolves when the process has ended (never rejects). */
  exited: Promise<StreamResult>;
  pid: number | undefined;
  kill(): void;
  /** Restarts the idle clock: the turn made progress. */
  progress(): void;
  /** Stops both clocks while the turn waits for the user; resume() restarts them. */
  pause(): void;
  resume(): void;
}

/**
 * Starts a process that speaks a protocol on stdin and stdout (a live turn): own process group,
 * whole-run timeout and idle watchdog (progress is reported by the caller, who knows which lines
 * mean something), stderr tail kept. Never throws: a spawn failure shows in `exited`. execa must be
 * loaded (runner.ts's localRunner.piped waits for it).
 */
export function spawnPiped(command: Command, options: Omit<StreamOptions, "onLine">): PipedProcess {
  if (loadedExeca === undefined)
    throw new Error("spawnPiped before loadExeca(): start piped processes with localRunner.piped");
  const child = loadedExeca(command.file, command.args, {
    cwd: command.cwd,
    env: command.env,
    extendEnv: command.env === undefined,
    stdin: "pipe",
    detached: true,
    reject: false,
    buffer: false,
    forceKillAfterDelay: FORCE_KILL_AFTER_MS,
  });
  const release = holdGroup(child.pid, loadedExeca);
  options.onSpawn?.(child.pid);
  const dog = watchdog(child.pid, options);
  const stdout = new PassThrough({ objectMode: true });
  const lines = new LineSplitter(
    (line) => stdout.write(line),
    (head, size) => options.onOversizedLine?.(head, size),
  );
  child.stdout?.setEncoding("utf8");
  child.stdout?.on("data", (chunk: string) => lines.push(chunk));
  const stderrTail = keepStderrTail(child, options.onStderr);
  // A child that exits while we write must not crash the companion with EPIPE.
  child.stdin?.on("error", () => undefined);
  const exited = child.then((result) => {
    dog.stop();
    lines.end();
    stdout.end();
    const end = ended(child.pid, result, dog, stderrTail());
    release();
    return end;
  });
  return {
    stdin: child.stdin ?? new PassThrough(),
    stdout,
    exited,
    pid: child.pid,
    kill: () => dog.killTree("cancelled"),
    progress: dog.progress,
    pause: dog.pause,
    resume: dog.resume,
  };
}

/**
 * Runs a program on the user's terminal (stdin, stdout and stderr inherited), such as `$EDITOR`,
 * and waits for it to exit. The timeout is long, since a person is at work in it, but not endless.
 */
export async function runInteractive(
  command: Command,
  options: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<{ exitCode: number | undefined; failed: boolean; message?: string }> {
  const execa = await loadExeca();
  const result = await execa(command.file, command.args, {
    cwd: command.cwd,
    env: command.env,
    extendEnv: command.env === undefined,
    stdio: "inherit",
    timeout: options.timeoutMs ?? 12 * 60 * 60_000,
    cancelSignal: options.signal,
    forceKillAfterDelay: FORCE_KILL_AFTER_MS,
    reject: false,
  });
  if (result.failed && result.exitCode === undefined && result.code === "ENOENT") {
    throw new OffrunError("not_installed", `${command.file} was not found.`, { cause: result });
  }
  return {
    exitCode: result.exitCode,
    failed: result.failed,
    ...(result.failed ? { message: result.shortMessage } : {}),
  };
}

/**
 * Starts a process that outlives this one (the companion, started by a face): its own process
 * group and session, no stdio, not waited for. The one spawn without a timeout, since it is a
 * service; it stops on `offrun companion stop`.
 */
export async function spawnDetached(command: Command): Promise<void> {
  const execa = await loadExeca();
  const child = execa(command.file, command.args, {
    cwd: command.cwd,
    env: command.env,
    extendEnv: command.env === undefined,
    detached: true,
    stdio: "ignore",
    reject: false,
    cleanup: false,
  });
  child.unref();
}
