import { AsyncLocalStorage } from "node:async_hooks";
import path from "node:path";
import lockfile from "proper-lockfile";
import { OffrunError } from "../foundation/errors.js";
import { gitCommonDir } from "./repo.js";

/** Keys of the repository locks the current async call chain already holds (so nesting works). */
const held = new AsyncLocalStorage<ReadonlySet<string>>();
/** The tail of each repository's in-process queue. */
const queues = new Map<string, Promise<void>>();

const LOCK_FILE = "offrun-git.lock";
// A lock whose holder stopped refreshing it for this long belongs to a dead process.
const STALE_MS = 20_000;
// Up to about three minutes of waiting: twenty worktree adds in a large repo fit well inside.
const RETRIES = { retries: 200, factor: 1.3, minTimeout: 25, maxTimeout: 1_000, randomize: true };

/**
 * Runs `fn` while holding the repository's git lock: one git write at a time per repository,
 * across this process (a promise queue) and across processes (a lock directory inside the
 * common git dir, shared by every worktree). git's own index.lock/config.lock fail instead of
 * waiting, so concurrent worktree adds or merges would otherwise fail at random. Re-entrant
 * within one async call chain.
 */
export async function withRepoLock<T>(root: string, fn: () => Promise<T>): Promise<T> {
  const key = await gitCommonDir(root);
  const mine = held.getStore();
  if (mine?.has(key)) return fn();

  const previous = queues.get(key) ?? Promise.resolve();
  let release: () => void = () => undefined;
  const turn = new Promise<void>((resolve) => (release = resolve));
  const tail = previous.then(() => turn);
  queues.set(key, tail);
  await previous;
  try {
    const unlock = await acquireFileLock(key);
    try {
      return await held.run(new Set([...(mine ?? []), key]), fn);
    } finally {
      await unlock().catch(() => undefined); // already released or taken over as stale
    }
  } finally {
    release();
    if (queues.get(key) === tail) queues.delete(key);
  }
}

async function acquireFileLock(commonDir: string): Promise<() => Promise<void>> {
  try {
    return await lockfile.lock(commonDir, {
      lockfilePath: path.join(commonDir, LOCK_FILE),
      stale: STALE_MS,
      retries: RETRIES,
      // The default throws from a timer, crashing the process. The git call in flight is
      // still protected by git's own lock files, so losing ours mid-way is survivable.
      onCompromised: () => undefined,
    });
  } catch (error) {
    throw new OffrunError(
      "git",
      `Another Offrun process has held the git lock of ${commonDir} for minutes. If none is running, remove ${path.join(commonDir, LOCK_FILE)} and try again.`,
      { cause: error },
    );
  }
}
