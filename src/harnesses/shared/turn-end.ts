import type { ParsedEvent, TurnOutcome } from "../../core/foundation/events.js";
import type { StreamParser } from "../types.js";

/**
 * The turn_end a parser emits from `finish`, once the CLI has exited (OpenCode's and Pi's parsers
 * end every turn there): the outcome, the reason when there is one, and the exit code, null when
 * the exit gave none (a signal).
 */
export function exitTurnEnd(
  outcome: Extract<TurnOutcome, "completed" | "failed" | "limited" | "interrupted">,
  reason?: string,
  exitCode?: number,
): ParsedEvent {
  return {
    type: "turn_end",
    outcome,
    ...(reason === undefined ? {} : { reason }),
    exitCode: exitCode ?? null,
  };
}

/**
 * A parser's `finish` that gives its events on the first call only: every path of these `finish`
 * ends the turn, and a turn ends once (types.ts, StreamParser).
 */
export function finishOnce(finish: StreamParser["finish"]): StreamParser["finish"] {
  let finished = false;
  return (exit) => {
    if (finished) return [];
    finished = true;
    return finish(exit);
  };
}
