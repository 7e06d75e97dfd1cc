import type { Decision, LiveProcess, LiveTurnIO, PendingRequest, TurnInput } from "../../harnesses/types.js";
import type { Harness } from "../../harnesses/types.js";
import { describeError } from "../foundation/errors.js";
import type { ParsedEvent } from "../foundation/events.js";
import type { AgentRecord, ProjectConfig } from "../foundation/model.js";
import type { PipedProcess, StreamResult } from "../foundation/process.js";
import type { ProcessRunner } from "../foundation/runner.js";

/** How the supervisor answers a live turn's requests; without it, turns run one-way. */
export interface LiveHooks {
  ask(turn: number, request: PendingRequest, signal: AbortSignal): Promise<Decision>;
}

/**
 * The supervisor registers its hooks per agent record (the same object travels through the turn
 * chain to the turn), so failover (attempts.ts) and retry (turn-chain.ts) need not know about live turns.
 */
const hooksByRecord = new WeakMap<AgentRecord, LiveHooks>();

export function setLiveHooks(record: AgentRecord, hooks: LiveHooks): void {
  hooksByRecord.set(record, hooks);
}

/**
 * The live side of a harness, when this turn should use it: Build turns (Planner turns stay
 * one-way, where the CLI itself refuses writes), or every turn of a live-only harness (ACP).
 */
export function liveRunner(
  harness: Harness,
  record: AgentRecord,
): { live: NonNullable<Harness["live"]>; hooks: LiveHooks } | undefined {
  const hooks = hooksByRecord.get(record);
  if (!harness.live || !hooks || (record.mode !== "build" && !harness.liveOnly)) return undefined;
  return { live: harness.live, hooks };
}

/** The error event for a stdout line too long to keep: its head, and how big it was. */
export function oversizedEvent(head: string, size: number): ParsedEvent {
  return {
    type: "error",
    kind: "unreadable_output",
    message: `The CLI printed a line of ${(size / 1024 / 1024).toFixed(1)} MB (${size} characters); Offrun kept its first ${Math.round(head.length / 1024)} KB and skipped the rest: ${head}`,
  };
}

export interface LiveTurnOptions {
  turn: number;
  /** Where the CLI runs (see foundation/runner.ts). */
  runner: ProcessRunner;
  input: TurnInput;
  config: ProjectConfig;
  signal: AbortSignal;
  hooks: LiveHooks;
  /** Logs events in order (the turn's one sink, shared with the one-way path). */
  handle(events: ParsedEvent[]): void;
  onSpawn(pid: number | undefined): void;
  /** Offrun ended the process (stop, timeout, idle): logged before the harness sees the exit, so its reason wins. */
  onKilled(why: NonNullable<StreamResult["killedBecause"]>): void;
}

/**
 * Runs one Build turn over the harness's control protocol. The harness emits our events, asks
 * through `decide` and spawns through `spawn`; this keeps the watchdogs (paused while the user is
 * asked: time spent waiting for a person is not the CLI hanging) and returns how the process ended.
 */
export async function runLiveTurn(live: NonNullable<Harness["live"]>, options: LiveTurnOptions): Promise<StreamResult> {
  const { turn, config, signal } = options;
  let child: PipedProcess | undefined;
  let asked = 0;
  let ended = false;
  const io: LiveTurnIO = {
    signal,
    alwaysAllowed: config.alwaysAllow,
    emit(events) {
      if (events.some((e) => e.type === "turn_end")) ended = true;
      options.handle(events);
      // Retry notices are no progress: a CLI retrying forever offline must still be ended.
      if (events.some((e) => e.type !== "retry")) child?.progress();
    },
    async decide(request) {
      asked += 1;
      // Ids the user can type: unique in the agent's log, since turn numbers only grow.
      const id = `${turn}.${asked}`;
      child?.pause();
      try {
        return await options.hooks.ask(turn, { ...request, id }, signal);
      } finally {
        child?.resume();
      }
    },
    run: (command, runOptions) => options.runner.run(command, runOptions),
    spawn(command): LiveProcess {
      child = options.runner.piped(command, {
        timeoutMs: config.turnTimeoutMinutes * 60_000,
        idleTimeoutMs: config.idleTimeoutMinutes * 60_000,
        signal,
        onSpawn: options.onSpawn,
        onOversizedLine: (head, size) => options.handle([oversizedEvent(head, size)]),
      });
      const exited = child.exited.then((r) => {
        if (r.killedBecause) options.onKilled(r.killedBecause);
        return { exitCode: r.exitCode, ...(r.signal ? { signal: r.signal } : {}), stderrTail: r.stderrTail };
      });
      return { stdin: child.stdin, stdout: child.stdout, exited, kill: child.kill };
    },
  };
  try {
    await live.runTurn(options.input, io);
  } catch (error) {
    // A stopped turn rejects its pending decide(); anything else is a bug worth the log.
    if (!signal.aborted) {
      const message = `The live turn failed: ${describeError(error)}`;
      // Its own turn_end first, so the kill below does not read as a stop by the user.
      options.handle([
        { type: "error", kind: "process_failed", message },
        { type: "turn_end", outcome: "failed", reason: message },
      ]);
    }
    child?.kill();
  }
  // A turn may end before it starts anything (agy's version check): that is its own end, not a spawn error.
  if (!child && ended) return { exitCode: undefined, signal: undefined, stderrTail: "" };
  if (!child) {
    return { exitCode: undefined, signal: undefined, stderrTail: "", spawnError: "The harness started no process." };
  }
  return child.exited;
}
