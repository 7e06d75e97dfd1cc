import { describeToolInput } from "../foundation/tool-input.js";
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
 * The chat facts of many agents, kept current event by event: an agent's log is read once, at
 * first sight (`learn`, `learnFrom`), and from then on only its appended events are applied. Used for this
 * machine's logs (snapshot-writer.ts) and for the local copies of a host's (companion/mirror.ts).
 */
export class ChatFactsBook {
  private readonly known = new Map<string, Known>();

  has(key: string): boolean {
    return this.known.has(key);
  }

  /** The facts of a whole log: its last words, and what waits in the record's current turn. */
  learn(key: string, record: AgentRecord, events: Iterable<AgentEvent>): void {
    const learning = new Learning(record);
    for (const event of events) learning.add(event);
    this.known.set(key, learning.known);
  }

  /** As `learn`, from a log read as a stream: nothing of it is held but what it says. */
  async learnFrom(key: string, record: AgentRecord, events: AsyncIterable<AgentEvent>): Promise<void> {
    const learning = new Learning(record);
    for await (const event of events) learning.add(event);
    this.known.set(key, learning.known);
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

/** A whole log's facts, event by event, as `pendingFromLog` reads them (approvals.ts). */
class Learning {
  readonly known: Known = { pending: new Map() };
  private readonly decided = new Set<string>();

  constructor(private readonly record: AgentRecord) {}

  add(event: AgentEvent): void {
    if (event.type === "text") this.known.lastWords = event.text;
    if (event.type === "decision") {
      this.decided.add(event.id);
      this.known.pending.delete(event.id);
    }
    // Only what the current turn of an agent that needs you asks, and no one answered.
    if (this.record.status !== "needs-you" || event.turn !== this.record.turns) return;
    if ((event.type === "approval_request" || event.type === "question") && event.id !== undefined) {
      if (!this.decided.has(event.id)) addPending(this.known, event);
    }
  }
}

function addPending(known: Known, event: AgentEvent): void {
  if (event.type === "approval_request") {
    // The command whole, from the call's input (the CLI's own text may be cut): the menu bar's
    // Approve allows what it shows. Else the CLI's text, else the tool's name.
    const input = event.input === null || event.input === undefined ? "" : describeToolInput(event.input, 2_000);
    const text = input && input !== "{}" ? `${event.tool}: ${input}` : (event.text ?? event.tool);
    known.pending.set(event.id, { id: event.id, kind: "approval", tool: event.tool, text });
  } else if (event.type === "question" && event.id !== undefined) {
    known.pending.set(event.id, { id: event.id, kind: "question", text: event.text });
  }
}
