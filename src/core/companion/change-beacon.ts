/**
 * Tells a waiting peer that something it may show changed: an agent's record or chat log, the
 * quota, a notification (whatever rewrites state.json, snapshot-writer.ts). A local companion that
 * follows this one over SSH (companion/mirror.ts) asks `changes.wait` and is answered at the next
 * change, not every second: an idle host and its follower do no work at all.
 */
export class ChangeBeacon {
  /** Another companion's tokens never match this one's (a restarted host answers at once). */
  private readonly epoch = `${process.pid.toString(36)}.${Date.now().toString(36)}`;
  private count = 0;
  private readonly waiters = new Set<() => void>();

  /** What the state is now, as an opaque token. */
  token(): string {
    return `${this.epoch}.${this.count}`;
  }

  changed(): void {
    this.count += 1;
    for (const wake of [...this.waiters]) wake();
  }

  /**
   * The token once it is no longer `after`: at once when something changed since `after` was
   * given (or `after` is another companion's), else at the next change, or after `timeoutMs`
   * with the same token.
   */
  async next(after: string | undefined, timeoutMs: number): Promise<string> {
    if (after !== this.token()) return this.token();
    await new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve();
      };
      // Unref'd: a wait never keeps a stopping companion alive.
      const timer = setTimeout(wake, timeoutMs).unref();
      this.waiters.add(wake);
    });
    return this.token();
  }
}
