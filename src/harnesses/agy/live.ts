import type { ParsedEvent } from "../../core/foundation/events.js";
import type { Command } from "../../core/foundation/process.js";
import type { LiveTurnIO, TurnInput } from "../types.js";
import { createAgyParser } from "./parser.js";
import { modelArgs } from "./turn-args.js";
import { agyTooOld } from "./version.js";

/**
 * Every agy turn runs here, Planner too: agy asks nothing (print mode approves or auto-denies by
 * itself), but a one-way stream cannot notice what agy hides. Since 1.2.1 agy retries an exhausted
 * quota in-process, prints nothing, and only at `--print-timeout` ends with
 * `{"event":"result","result":{"status":"ERROR","error":"… RESOURCE_EXHAUSTED … Resets in 2h39m52s."}}`
 * (exit 0). So when the stream has been quiet for `quietMs` with no tool running, the turn asks
 * agy itself: a one-line probe prompt on the same login and model with a short print timeout,
 * which on an exhausted quota ends within seconds with that same error and its reset. A limit ends
 * the turn as limited (so failover moves on at once); a healthy answer re-arms the watchdog with
 * twice the wait, so a long quiet turn costs a handful of one-line probes at most. A quota error
 * agy reports in the stream itself is read as it comes, by the parser.
 */
export interface AgyLiveOptions {
  /** Quiet time before the first probe. */
  quietMs?: number;
  /** agy's print timeout for the probe: on an exhausted quota its answer comes at this timeout. */
  probeTimeout?: string;
}

const PROBE_PROMPT = "Reply with the single word OK.";
const MAX_QUIET_MS = 15 * 60_000;
const EXIT_GRACE_MS = 10_000;

export function createAgyLive(build: (input: TurnInput) => Command, options: AgyLiveOptions = {}) {
  const quietMs = options.quietMs ?? 35_000;
  const probeTimeout = options.probeTimeout ?? "20s";
  return {
    async runTurn(input: TurnInput, io: LiveTurnIO): Promise<void> {
      const command = build(input);
      const tooOld = await agyTooOld(io, command);
      if (tooOld) {
        io.emit([
          { type: "error", kind: "not_installed", message: tooOld },
          { type: "turn_end", outcome: "failed", reason: tooOld },
        ]);
        return;
      }
      const child = io.spawn(command);
      // The prompt (when too long for argv), then EOF: agy 1.1.1+ reads no stdin after `-p`.
      child.stdin.end(command.input ?? "");
      const parser = createAgyParser();
      // Set once a turn_end went out (a limit found by the probe, or the held end below).
      let ended = false;
      const emit = (events: ParsedEvent[]) => {
        if (ended || events.length === 0) return;
        if (events.some((e) => e.type === "turn_end")) ended = true;
        io.emit(events);
      };
      // The result line's turn_end waits for the exit: auto-deny notices come on stderr, after the
      // result, and events after a turn's end are not logged.
      let heldEnd: ParsedEvent | undefined;
      let exitGrace: NodeJS.Timeout | undefined;
      const watch = quotaWatch(
        { io, input, command, quietMs, probeTimeout, busy: () => parser.toolRunning() },
        (limit) => {
          if (heldEnd) return;
          emit(limit);
          child.kill();
        },
      );
      try {
        for await (const chunk of child.stdout) {
          if (heldEnd || ended) continue;
          watch.saw();
          const events = parser.push(String(chunk));
          const at = events.findIndex((e) => e.type === "turn_end");
          if (at < 0) {
            emit(events);
            continue;
          }
          emit(events.slice(0, at));
          heldEnd = events[at];
          watch.stop();
          // agy exits right after its result; one that lingers is ended, its end logged first.
          exitGrace = setTimeout(() => {
            emit([heldEnd!]);
            child.kill();
          }, EXIT_GRACE_MS);
        }
      } finally {
        watch.stop();
      }
      const exit = await child.exited;
      clearTimeout(exitGrace);
      const last = parser.finish(exit);
      if (heldEnd) emit([...last.filter((e) => e.type !== "turn_end"), heldEnd]);
      else emit(last);
    },
  };
}

interface WatchContext {
  io: LiveTurnIO;
  input: TurnInput;
  command: Command;
  quietMs: number;
  probeTimeout: string;
  busy: () => boolean;
}

/** The quiet-stream watchdog: `saw` on every line; `onLimit` gets the limit_hit and turn_end to emit. */
function quotaWatch(ctx: WatchContext, onLimit: (events: ParsedEvent[]) => void) {
  let wait = ctx.quietMs;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const arm = () => {
    clearTimeout(timer);
    if (!stopped) timer = setTimeout(() => void fire(), wait);
  };
  const fire = async () => {
    if (stopped || ctx.io.signal.aborted) return;
    if (ctx.busy()) return arm(); // a tool is running: agy is not waiting for the model
    const found = await probe(ctx);
    if (stopped) return;
    if (found) return onLimit(found);
    wait = Math.min(wait * 2, MAX_QUIET_MS);
    arm();
  };
  arm();
  return {
    saw: arm,
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

/** Asks agy a one-line question on the same login and model; its limit_hit and turn_end when the quota is out. */
async function probe(ctx: WatchContext): Promise<ParsedEvent[] | undefined> {
  const { command, input } = ctx;
  const args = [`-p=${PROBE_PROMPT}`, "--output-format", "stream-json", "--print-timeout", ctx.probeTimeout];
  args.push("--mode", "plan", ...modelArgs(input.model));
  const probeCommand: Command = { file: command.file, args, ...(command.cwd ? { cwd: command.cwd } : {}) };
  if (command.env) probeCommand.env = command.env;
  const result = await ctx.io.run(probeCommand, { timeoutMs: 60_000, signal: ctx.io.signal }).catch(() => undefined);
  if (!result) return undefined;
  const parser = createAgyParser();
  const events = result.stdout.split("\n").flatMap((line) => parser.push(line));
  const limit = events.find((e) => e.type === "limit_hit");
  if (!limit) return undefined;
  const reason = `agy kept retrying an exhausted quota without reporting it; Offrun asked agy on this login and got: ${limit.message}`;
  return [limit, { type: "turn_end", outcome: "limited", reason }];
}
