import type { Harness, TurnInput } from "../../harnesses/types.js";
import type { ParsedEvent } from "../foundation/events.js";
import type { ProjectConfig } from "../foundation/model.js";
import type { ProcessRunner } from "../foundation/runner.js";
import type { KilledBecause } from "../foundation/watchdog.js";
import { oversizedEvent, runLiveTurn, type LiveHooks } from "./live-turn.js";

type TurnEndDraft = Extract<ParsedEvent, { type: "turn_end" }>;

export interface CliRunOptions {
  harness: Harness;
  /** Where the CLI runs: every spawn of it goes through this (see foundation/runner.ts). */
  runner: ProcessRunner;
  input: TurnInput;
  config: ProjectConfig;
  signal: AbortSignal;
  /** Over the harness's control protocol (approvals, questions); the one-way stream otherwise. */
  live?: { live: NonNullable<Harness["live"]>; hooks: LiveHooks; turn: number };
  /** The parser gets the turn's input (Codex then reads the rollout for refused writes at the end). */
  parserReadsInput?: boolean;
  /** Every event, in order. Exactly one turn_end passes through it. */
  handle(events: ParsedEvent[]): void;
  onSpawn?(pid: number | undefined): void;
  onStderr?(chunk: string): void;
  /** The stderr the parser's finish sees (default: the runner's 8 KB tail). */
  stderrTail?(): string;
  /** The terminal event when Offrun ended the process itself (stop, idle, timeout). */
  killedEnd(why: KilledBecause): TurnEndDraft;
  /** The reason when the CLI ended without a result. */
  noResult: string;
  /** Whether this end lets the caller go on before the process has exited (see runCli). */
  settleAtEnd?(end: TurnEndDraft): boolean;
}

/** How long a CLI that reported its end may take to exit by itself before its group is ended. */
const EXIT_GRACE_MS = 5_000;

/**
 * One run of an agent CLI for one turn, the same for an agent's turn and a review: spawn it
 * (live over its control protocol, or one-way with stdin closed), turn every line into events, end
 * it on timeout, idle or stop, and close with exactly one terminal event whatever happened (a
 * spawn error, an exit without a result). The caller's `handle` logs and counts.
 *
 * With `settleAtEnd`, an end it accepts returns at once: the process finishes exiting on its own
 * (its group is ended after a grace), and the events it prints on the way out are still handed
 * over, for the caller to ignore.
 */
export async function runCli(options: CliRunOptions): Promise<void> {
  // Ends the process: the turn's stop, or the grace after a settled end.
  const cli = new AbortController();
  const stop = () => cli.abort();
  if (options.signal.aborted) stop();
  else options.signal.addEventListener("abort", stop, { once: true });
  let settle!: () => void;
  const settled = new Promise<void>((resolve) => (settle = resolve));
  const run = runToExit({
    ...options,
    signal: cli.signal,
    handle: (events) => {
      options.handle(events);
      const end = events.find((e): e is TurnEndDraft => e.type === "turn_end");
      if (end && options.settleAtEnd?.(end)) settle();
    },
  }).finally(() => {
    finished = true;
    options.signal.removeEventListener("abort", stop);
  });
  let finished = false;
  await Promise.race([run, settled]);
  if (finished) return;
  // Settled: the process exits by itself; one that lingers is ended after the grace.
  const grace = setTimeout(stop, EXIT_GRACE_MS);
  grace.unref();
  run.catch(() => undefined).finally(() => clearTimeout(grace));
}

async function runToExit(options: CliRunOptions): Promise<void> {
  const { harness, input, config, signal } = options;
  let ended = false;
  const handle = (events: ParsedEvent[]) => {
    if (events.some((e) => e.type === "turn_end")) ended = true;
    options.handle(events);
  };
  const killed = (why: KilledBecause) => handle([options.killedEnd(why)]);
  const parser = harness.createParser(options.parserReadsInput ? input : undefined);
  const result = options.live
    ? await runLiveTurn(options.live.live, {
        turn: options.live.turn,
        runner: options.runner,
        input,
        config,
        signal,
        hooks: options.live.hooks,
        handle,
        onSpawn: options.onSpawn ?? (() => undefined),
        onKilled: killed,
      })
    : await options.runner.stream(harness.turnCommand(input), {
        timeoutMs: config.turnTimeoutMinutes * 60_000,
        idleTimeoutMs: config.idleTimeoutMinutes * 60_000,
        signal,
        ...(options.onSpawn ? { onSpawn: options.onSpawn } : {}),
        ...(options.onStderr ? { onStderr: options.onStderr } : {}),
        onLine: (line) => {
          const events = parser.push(line);
          handle(events);
          // A CLI that only reports retries (offline, not logged in) is not making progress.
          return events.length === 0 || events.some((e) => e.type !== "retry");
        },
        onOversizedLine: (head, size) => handle([oversizedEvent(head, size)]),
      });
  if (result.killedBecause) killed(result.killedBecause);
  else if (result.spawnError) handle([{ type: "error", kind: "process_failed", message: result.spawnError }]);
  if (!options.live) {
    const stderrTail = options.stderrTail?.() ?? result.stderrTail;
    handle(parser.finish({ exitCode: result.exitCode, signal: result.signal, stderrTail }));
  }
  if (!ended) handle([{ type: "turn_end", outcome: "failed", reason: options.noResult }]);
}
