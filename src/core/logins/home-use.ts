/**
 * Work under way in a login's home in this process (a status command, which may write its own
 * files there). Purging a login waits for it: a check that ended after the folder was deleted made
 * it again (seen in CI: `logins rm --purge` in the companion while its first sign-in round asked
 * `claude auth status`, which left the home behind).
 */
const using = new Map<string, Set<Promise<unknown>>>();

/** Counts `work` as using `home` until it settles; returns it unchanged. */
export function inHome<T>(home: string, work: Promise<T>): Promise<T> {
  return track(using, home, work);
}

/** Keeps `work` in `home`'s set of `works` until it settles (the set goes when it empties). */
function track<T>(works: Map<string, Set<Promise<unknown>>>, home: string, work: Promise<T>): Promise<T> {
  const set = works.get(home) ?? new Set<Promise<unknown>>();
  works.set(home, set);
  const tracked = work.finally(() => {
    set.delete(tracked);
    if (set.size === 0 && works.get(home) === set) works.delete(home);
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

/**
 * Turns under way in a login's home, and status commands running there now. The two must not
 * overlap: OpenCode 1.18.33 keeps its state in SQLite, and a turn that started while the
 * companion's `opencode auth list` held the database failed with "database is locked" (seen in
 * CI). A status check skips a home with a turn in it (the turn itself says whether the login
 * works), and a turn waits for a check already running there before it starts its CLI.
 */
const turns = new Map<string, number>();
const checking = new Map<string, Set<Promise<unknown>>>();

/** Marks `home` as having a turn until the returned function is called. */
export function turnStarts(home: string): () => void {
  turns.set(home, (turns.get(home) ?? 0) + 1);
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    const left = (turns.get(home) ?? 1) - 1;
    if (left > 0) turns.set(home, left);
    else turns.delete(home);
  };
}

export function hasTurn(home: string): boolean {
  return (turns.get(home) ?? 0) > 0;
}

/** Counts `work` (a status command) as running in `home` until it settles; returns it unchanged. */
export function checkRuns<T>(home: string, work: Promise<T>): Promise<T> {
  return track(checking, home, work);
}

/** Resolves once no status command runs in `home` (each is time-boxed by its own budget). */
export async function checksDone(home: string): Promise<void> {
  const set = checking.get(home);
  if (set && set.size > 0) await Promise.allSettled([...set]);
}
