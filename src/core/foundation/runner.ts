import { PassThrough } from "node:stream";
import { describeError } from "./errors.js";
import {
  execaLoaded,
  loadExeca,
  runCommand,
  spawnPiped,
  streamCommand,
  type Command,
  type PipedProcess,
  type RunOptions,
  type RunResult,
  type StreamOptions,
  type StreamResult,
} from "./process.js";

/** What spawnPiped takes: a stream's options without the line callback (the caller reads stdout). */
export type PipedOptions = Omit<StreamOptions, "onLine">;

/**
 * How Offrun starts an agent CLI, whatever the reason: a turn (one-way or live), a review, a
 * status or quota probe. Every such spawn goes through one of these, so that where and how the
 * CLI runs is decided in one place: on this machine as it is (`localRunner`), or with its argv
 * rewritten first (`wrappedRunner`: a sandbox puts the CLI inside bubblewrap). Offrun's own
 * processes (git, the companion, an editor) do not go through a runner: they stay outside.
 */
export interface ProcessRunner {
  /** A short command to completion (a status or version question); see runCommand. */
  run(command: Command, options?: RunOptions): Promise<RunResult>;
  /** A one-way turn: stdin closed, each stdout line handed over, watchdogs; see streamCommand. */
  stream(command: Command, options: StreamOptions): Promise<StreamResult>;
  /** A process that speaks a protocol on stdin and stdout (a live turn, an app-server); see spawnPiped. */
  piped(command: Command, options: PipedOptions): PipedProcess;
}

/**
 * The CLI runs on this machine, as the user would run it. The first piped process of a run waits
 * for execa to load (process.ts loads it on the first spawn), as a sandboxed one waits for its argv.
 */
export const localRunner: ProcessRunner = {
  run: runCommand,
  stream: streamCommand,
  piped: (command, options) =>
    execaLoaded()
      ? spawnPiped(command, options)
      : deferredPiped(
          loadExeca().then(() => command),
          options,
          localRunner,
        ),
};

/**
 * A runner that rewrites each command before `inner` runs it (a sandbox wraps the CLI's argv in
 * its own launcher). `wrap` must keep the command's meaning: same program, same arguments. It may
 * take time (the sandbox looks at the worktree first): a piped process is handed over at once and
 * connected to the real one when it starts.
 */
export function wrappedRunner(
  wrap: (command: Command) => Command | Promise<Command>,
  inner: ProcessRunner = localRunner,
): ProcessRunner {
  return {
    run: async (command, options) => inner.run(await wrap(command), options),
    stream: async (command, options) => inner.stream(await wrap(command), options),
    piped: (command, options) =>
      deferredPiped(
        Promise.resolve().then(() => wrap(command)),
        options,
        inner,
      ),
  };
}

/** A PipedProcess whose command is still being made: writes wait, and every call reaches the process once it exists. */
function deferredPiped(pending: Promise<Command>, options: PipedOptions, inner: ProcessRunner): PipedProcess {
  const stdin = new PassThrough();
  const stdout = new PassThrough({ objectMode: true });
  let real: PipedProcess | undefined;
  let killed = false;
  let paused = false;
  const exited = pending.then(
    (command) => {
      real = inner.piped(command, options);
      stdin.pipe(real.stdin);
      real.stdout.pipe(stdout);
      if (paused) real.pause();
      if (killed) real.kill();
      return real.exited;
    },
    (error: unknown): StreamResult => {
      stdout.end();
      return { exitCode: undefined, signal: undefined, stderrTail: "", spawnError: describeError(error) };
    },
  );
  return {
    stdin,
    stdout,
    exited,
    pid: undefined, // onSpawn reports it, once there is one
    kill: () => {
      killed = true;
      real?.kill();
    },
    progress: () => real?.progress(),
    pause: () => {
      paused = true;
      real?.pause();
    },
    resume: () => {
      paused = false;
      real?.resume();
    },
  };
}
