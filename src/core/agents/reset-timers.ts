/**
 * The timers of agents that wait for a limit to reset, in one companion. When several come due
 * together they go on one after the other: each waits until the one before has taken its login,
 * so the second sees the first on that login and goes to another with room (or waits its turn).
 */

/** setTimeout's longest delay (about 24.8 days); longer waits are re-armed. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

export class ResetWaits {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private queue: Promise<void> = Promise.resolve();
  private closed = false;

  /** `goOn` starts the agent's message again; it resolves once that turn holds its login (or did not start). */
  constructor(private readonly goOn: (root: string, name: string) => Promise<void>) {}

  /** Arms (or re-arms) the agent's wake-up at `at`; a time in the past wakes it at once. */
  schedule(root: string, name: string, at: string): void {
    if (this.closed) return;
    this.cancel(root, name);
    const id = key(root, name);
    const delay = Math.max(0, Date.parse(at) - Date.now());
    const timer = setTimeout(
      () => {
        this.timers.delete(id);
        if (delay > LONGEST_TIMER_MS) return this.schedule(root, name, at);
        this.queue = this.queue.then(() => this.goOn(root, name).catch(() => undefined));
      },
      Math.min(delay, LONGEST_TIMER_MS),
    );
    // A wait alone does not keep a process alive; the companion is kept alive by its server.
    timer.unref();
    this.timers.set(id, timer);
  }

  /** True when the agent had a wait armed here. */
  cancel(root: string, name: string): boolean {
    const id = key(root, name);
    const timer = this.timers.get(id);
    if (!timer) return false;
    clearTimeout(timer);
    this.timers.delete(id);
    return true;
  }

  has(root: string, name: string): boolean {
    return this.timers.has(key(root, name));
  }

  close(): void {
    this.closed = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }
}

function key(root: string, name: string): string {
  return `${root}\u0000${name}`;
}
