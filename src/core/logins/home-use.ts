/**
 * Work under way in a login's home in this process (a status command, which may write its own
 * files there). Purging a login waits for it: a check that ended after the folder was deleted made
 * it again (seen in CI: `accounts rm --purge` in the companion while its first sign-in round asked
 * `claude auth status`, which left the home behind).
 */
const using = new Map<string, Set<Promise<unknown>>>();

/** Counts `work` as using `home` until it settles; returns it unchanged. */
export function inHome<T>(home: string, work: Promise<T>): Promise<T> {
  const set = using.get(home) ?? new Set<Promise<unknown>>();
  using.set(home, set);
  const tracked = work.finally(() => {
    set.delete(tracked);
    if (set.size === 0 && using.get(home) === set) using.delete(home);
  });
  set.add(tracked);
  return tracked;
}

/** Resolves once nothing in this process uses `home` (failures included). */
export async function homeSettled(home: string): Promise<void> {
  for (;;) {
    const set = using.get(home);
    if (!set || set.size === 0) return;
    await Promise.allSettled([...set]);
  }
}
