import type { ParsedEvent, TurnOutcome } from "../../core/foundation/events.js";

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
