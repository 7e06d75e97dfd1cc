import type { AgentEvent, EventDraft } from "../foundation/events.js";
import type { AgentRecord } from "../foundation/model.js";
import { KeyedQueue } from "../foundation/queue.js";
import { appendChat, writeAgent } from "../records/records.js";

/** The key of one agent of one project in the supervisor's maps and queues. */
export function agentKey(root: string, name: string): string {
  return `${root}\u0000${name}`;
}

/**
 * An agent's chat log and record, written in order: every event is appended the moment it
 * arrives (so a crash loses nothing said), and record changes are serialized with them per agent.
 * The same queue serializes naming per project and turn starts per agent for the supervisor.
 */
export class AgentJournal {
  constructor(readonly queue = new KeyedQueue()) {}

  /**
   * Appends one event to the agent's chat log, stamped with the turn and the time: now, or `at`
   * for an event written down after it happened (a turn's start, once its CLI's pid is recorded).
   */
  log(record: AgentRecord, turn: number, event: EventDraft, at = new Date()): Promise<void> {
    const stamped = { ...event, at: at.toISOString(), turn } as AgentEvent;
    return this.queue.run(`agent:${agentKey(record.project, record.name)}`, () =>
      appendChat(record.project, record.name, stamped),
    );
  }

  /** Applies `changes` to the record in memory (undefined removes a field) and writes it. */
  update(record: AgentRecord, changes: Partial<AgentRecord>): Promise<void> {
    return this.queue.run(`agent:${agentKey(record.project, record.name)}`, async () => {
      Object.assign(record, changes, { updatedAt: new Date().toISOString() });
      for (const [field, value] of Object.entries(changes)) {
        if (value === undefined) delete (record as Record<string, unknown>)[field];
      }
      await writeAgent(record);
    });
  }
}
