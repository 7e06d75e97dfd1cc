import type { EventDraft, TurnEndEvent } from "../foundation/events.js";
import { diskFullMessage, isDiskFull, keepReserve, releaseReserve } from "../foundation/disk-full.js";
import { describeError } from "../foundation/errors.js";
import { projectPaths } from "../foundation/paths.js";
import { reportStateProblem } from "../foundation/state-problems.js";

type TurnEndDraft = Extract<EventDraft, { type: "turn_end" }>;
/** How much of each lost event the report quotes. */
const QUOTE_CHARS = 120;
/** How many lost events the report names one by one. */
const LISTED = 20;

/** Why Offrun ended a turn by itself on a full disk (the abort reason of its CLI). */
export class DiskFullStop {
  constructor(readonly error: NodeJS.ErrnoException) {}
}

/**
 * A turn's writes on a disk that may fill: the first write that finds no room ends the turn's CLI
 * (nothing it says could be kept), every event that could not be written is remembered, and at the
 * end the disk's reserve is given back so that the report of what was lost and the turn's failed
 * end can be written. A full disk is the user's to fix, so it is said as that, not as a crash.
 */
export class DiskFullTurn {
  readonly lost: EventDraft[] = [];
  error?: NodeJS.ErrnoException;
  private endWritten = false;

  constructor(
    private readonly project: string,
    private readonly stop: (reason: DiskFullStop) => void,
  ) {}

  /** Makes the reserve the report needs, before the turn writes anything (best effort). */
  prepare(): Promise<void> {
    return keepReserve(projectPaths(this.project).chats);
  }

  /** `log`, with a write the disk has no room for kept as lost instead of failing the turn. */
  async log(write: () => Promise<void>, event: EventDraft): Promise<void> {
    // Once the disk was found full the turn's one end is the one finish() writes: a CLI's own end
    // that landed on a page freed meanwhile would say "completed" over lost lines.
    if (this.error && event.type === "turn_end") {
      this.lost.push(event);
      return;
    }
    try {
      await write();
      if (event.type === "turn_end") this.endWritten = true;
    } catch (error) {
      if (!this.noted(error)) throw error;
      this.lost.push(event);
    }
  }

  /** `update` likewise: the record on disk stays whole (it is written atomically) and one step behind. */
  async update(write: () => Promise<void>): Promise<void> {
    await write().catch((error: unknown) => {
      if (!this.noted(error)) throw error;
    });
  }

  /** The end of a turn Offrun stopped for a full disk, until the free space is measured. */
  static end(project: string): TurnEndDraft {
    return {
      type: "turn_end",
      outcome: "failed",
      reason: `The disk holding ${project} is full: free space, then send a message to go on.`,
    };
  }

  /**
   * After the turn's writes have settled: gives the reserve back, writes what was lost and, when
   * the turn's end was lost too, the end again. Returns the end the turn had.
   */
  async finish(final: TurnEndEvent, log: (event: EventDraft) => Promise<void>): Promise<TurnEndEvent> {
    if (!this.error) return final;
    const reason = await diskFullMessage(this.project, this.error);
    await releaseReserve(projectPaths(this.project).chats);
    const lost = this.lost.filter((e) => e.type !== "turn_end");
    // Even the reserve may not be enough (or be gone): then companion.log says it, never nothing.
    const unsaid = (what: string) => (error: unknown) =>
      reportStateProblem({
        file: projectPaths(this.project).chats,
        message: `${what} could not be written to the chat log either (${describeError(error)}). ${reason}`,
      });
    if (lost.length > 0) {
      const message = describeLost(lost);
      await log({ type: "notice", level: "warning", message }).catch(unsaid(message));
    }
    // An end already on disk stays the turn's one end (the disk filled after it, at the record's write).
    if (this.endWritten) return final;
    const end: TurnEndEvent = { ...final, outcome: "failed", reason };
    await log(end).catch(unsaid(`The end of turn ${final.turn}`));
    return end;
  }

  private noted(error: unknown): boolean {
    if (!isDiskFull(error)) return false;
    if (!this.error) {
      this.error = error;
      this.stop(new DiskFullStop(error));
    }
    return true;
  }
}

/** "Lost while the disk was full (3 events): your message "…"; the agent's words "…"; a tool call Bash." */
export function describeLost(events: EventDraft[]): string {
  const named = events.slice(0, LISTED).map(describeEvent);
  const more = events.length > LISTED ? `; and ${events.length - LISTED} more` : "";
  const count = events.length === 1 ? "1 event" : `${events.length} events`;
  return `Lost while the disk was full (${count} of this turn could not be written): ${named.join("; ")}${more}.`;
}

function describeEvent(event: EventDraft): string {
  switch (event.type) {
    case "user_message":
      return `your message ${quote(event.text)}`;
    case "text":
      return `the agent's words ${quote(event.text)}`;
    case "tool_call":
      return `a tool call ${event.name}`;
    case "notice":
      return `a notice ${quote(event.message)}`;
    case "error":
      return `an error ${quote(event.message)}`;
    default:
      return `a ${event.type} event`;
  }
}

function quote(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return `"${flat.length > QUOTE_CHARS ? `${flat.slice(0, QUOTE_CHARS)}…` : flat}"`;
}
