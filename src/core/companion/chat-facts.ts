import { pendingFromLog } from "../agents/approvals.js";
import type { AgentEvent } from "../foundation/events.js";
import type { AgentRecord } from "../foundation/model.js";
import type { SnapshotAgent } from "./snapshot.js";

/** A request that waits on the user, as state.json lists it. */
export type Pending = SnapshotAgent["pending"][number];

/** What an agent's chat log says beyond its record: its last words and what waits on the user. */
export interface ChatFacts {
  lastWords?: string;
  pending: Pending[];
}

interface Known {
  lastWords?: string;
  pending: Map<string, Pending>;
}

/**
 * The chat facts of many agents, kept current event by event: an agent's log is read whole once,
 * at first sight (`learn`), and from then on only its appended events are applied. Used for this
 * machine's logs (snapshot-writer.ts) and for the local copies of a host's (companion/mirror.ts).
 */
export class ChatFactsBook {
  private readonly known = new Map<string, Known>();

  has(key: string): boolean {
    return this.known.has(key);
  }

  /** The facts of a whole log: its last words, and what waits in the record's current turn. */
  learn(key: string, record: AgentRecord, events: AgentEvent[]): void {
    const known: Known = { pending: new Map() };
    for (const event of events) if (event.type === "text") known.lastWords = event.text;
    for (const event of pendingFromLog(record, events)) addPending(known, event);
    this.known.set(key, known);
  }

  /** One appended event; an agent not learned yet is left for its first read. */
  apply(key: string, event: AgentEvent): void {
    const known = this.known.get(key);
    if (!known) return;
    if (event.type === "turn_start") known.pending.clear();
    if (event.type === "text") known.lastWords = event.text;
    if (event.type === "decision") known.pending.delete(event.id);
    addPending(known, event);
  }

  get(key: string): ChatFacts | undefined {
    const known = this.known.get(key);
    return (
      known && { ...(known.lastWords ? { lastWords: known.lastWords } : {}), pending: [...known.pending.values()] }
    );
  }

  /** The log was replaced (a discarded agent, a new one of the same name): learned again when next seen. */
  forget(key: string): void {
    this.known.delete(key);
  }
}

function addPending(known: Known, event: AgentEvent): void {
  if (event.type === "approval_request") {
    known.pending.set(event.id, { id: event.id, kind: "approval", tool: event.tool, text: event.text ?? event.tool });
  } else if (event.type === "question" && event.id !== undefined) {
    known.pending.set(event.id, { id: event.id, kind: "question", text: event.text });
  }
}
