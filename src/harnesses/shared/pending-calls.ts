import type { TranscriptMoment, WaitingCall } from "../types.js";

/**
 * Tool calls seen in a transcript whose result has not come yet. One still open after its grace
 * period is told once as waiting for approval; its result (or a new prompt) takes it back.
 */
export class PendingCalls {
  private readonly calls = new Map<string, { moment: TranscriptMoment; dueAt: number }>();

  add(id: string, moment: TranscriptMoment, dueAt: number): void {
    this.calls.set(id, { moment, dueAt });
  }

  resolve(id: string): void {
    this.calls.delete(id);
  }

  clear(): void {
    this.calls.clear();
  }

  /** The moments whose grace period has passed by `at`; each is returned once. */
  due(at: number): TranscriptMoment[] {
    const out: TranscriptMoment[] = [];
    for (const [id, wait] of this.calls) {
      if (wait.dueAt > at) continue;
      this.calls.delete(id);
      out.push(wait.moment);
    }
    return out;
  }

  nextDueAt(): number | undefined {
    let next: number | undefined;
    for (const wait of this.calls.values()) next = next === undefined ? wait.dueAt : Math.min(next, wait.dueAt);
    return next;
  }

  waiting(): WaitingCall[] {
    return [...this.calls].map(([id, { moment, dueAt }]) => ({ id, moment, dueAt }));
  }

  restoreWaiting(calls: readonly WaitingCall[]): void {
    for (const call of calls) this.calls.set(call.id, { moment: call.moment, dueAt: call.dueAt });
  }
}
