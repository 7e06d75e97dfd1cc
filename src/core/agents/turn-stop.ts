import type { ParsedEvent } from "../foundation/events.js";

type TurnEndDraft = Extract<ParsedEvent, { type: "turn_end" }>;

/** Why the companion ends the turns it runs: `offrun companion stop`, or a SIGTERM/SIGINT (a service manager, a restart). */
export type CompanionStopCause = "stop" | "signal";

/**
 * The abort reason of a turn the companion ends because it is going away: the turn is then
 * interrupted, not cancelled, and says so; its session is kept, so the next message goes on with
 * it. A plain abort (no reason) is the user's stop.
 */
export class CompanionStop {
  constructor(readonly cause: CompanionStopCause) {}

  end(): TurnEndDraft {
    const what =
      this.cause === "signal"
        ? "The companion was stopped (SIGTERM or SIGINT: a restart, a service manager, a logout)"
        : "The companion was stopped (`offrun companion stop`)";
    return {
      type: "turn_end",
      outcome: "interrupted",
      reason: `${what} during this turn. Send a message to continue the same session.`,
    };
  }
}
