import type { Dirent } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import * as z from "zod";
import { userPaths } from "../foundation/paths.js";
import { readJsonFile, writeJsonAtomic } from "../foundation/store.js";
import { byCodeUnits } from "../foundation/text-order.js";

/**
 * The git repositories in the folders where people keep code (`~/Developer`, `~/code`, ...), so
 * that Start Agent offers projects before any agent ran in them. A repository is a folder holding
 * `.git` (a folder, or the file of a linked worktree or submodule); no git runs: a scan of a few
 * hundred folders takes milliseconds, a git per folder would take seconds.
 */

/** Where people keep code, under HOME: Xcode's default first, then the usual hand-made ones. */
export const CODE_FOLDERS = ["Developer", "code", "src", "projects", "work"] as const;

/** `~/code/app` is one level down, `~/code/org/app` two; deeper folders are not searched. */
const MAX_DEPTH = 2;
/** A scan stops here and keeps what it found: a network home or a huge folder never stalls the form. */
const SCAN_BUDGET_MS = 500;
/**
 * A scan nobody waits for (behind a stale or cut-short answer) may take this long: on a busy
 * machine the half-second one finds little, and its answer would otherwise stand for `FRESH_MS`.
 */
const BACKGROUND_BUDGET_MS = 10_000;
/** A cache this young is used as it is; an older one is used and refreshed behind it. */
const FRESH_MS = 10 * 60_000;

export interface FoundRepository {
  root: string;
  name: string;
  /** When the repository last changed (its index, else its `.git`), ms since the epoch. */
  modifiedMs: number;
}

const cacheSchema = z.object({
  version: z.literal(1),
  scannedAt: z.number(),
  /** False when the scan ran out of time: the next open scans again instead of trusting it. */
  complete: z.boolean().default(true),
  repositories: z.array(z.object({ root: z.string(), name: z.string(), modifiedMs: z.number() })),
});

export function repositoryCacheFile(): string {
  return path.join(userPaths().cache, "repositories.json");
}

/** Scans the code folders under `home`, most recently changed first. */
export async function scanRepositories(
  options: { home?: string; budgetMs?: number; now?: () => number } = {},
): Promise<FoundRepository[]> {
  return (await scanWithin(options)).repositories;
}

/** The scan, and whether it searched everything before its budget ran out. */
async function scanWithin(options: {
  home?: string;
  budgetMs?: number;
  now?: () => number;
}): Promise<{ repositories: FoundRepository[]; complete: boolean }> {
  const home = options.home ?? (process.env.HOME || os.homedir());
  const now = options.now ?? Date.now;
  const deadline = now() + (options.budgetMs ?? SCAN_BUDGET_MS);
  const found = new Map<string, FoundRepository>();
  // A symlink may lead back up (a loop) or to a folder reached another way: each real folder is searched once.
  const searched = new Set<string>();

  let cutShort = false;

  async function search(dir: string, depth: number): Promise<void> {
    if (now() > deadline) {
      cutShort = true;
      return;
    }
    const real = await fs.realpath(dir).catch(() => undefined);
    if (real === undefined || searched.has(real)) return;
    searched.add(real);
    // Unreadable (no permission, gone since it was listed): nothing to offer there.
    const entries = await fs.readdir(real, { withFileTypes: true }).catch(() => [] as Dirent[]);
    await Promise.all(
      entries
        // Hidden folders (caches, tool homes) are not where projects live.
        .filter((entry) => !entry.name.startsWith(".") && (entry.isDirectory() || entry.isSymbolicLink()))
        .map(async (entry) => {
          const folder = path.join(real, entry.name);
          const stat = await fs.stat(folder).catch(() => undefined);
          if (!stat?.isDirectory()) return;
          const modifiedMs = await repositoryModified(folder);
          if (modifiedMs !== undefined) {
            const root = await fs.realpath(folder).catch(() => folder);
            if (!found.has(root)) found.set(root, { root, name: path.basename(root), modifiedMs });
            return; // a repository's own folders are its business, not other projects
          }
          if (depth < MAX_DEPTH) await search(folder, depth + 1);
        }),
    );
  }

  // The deadline stops new work; this stops the wait, for a folder whose stat never answers (a dead network mount).
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      cutShort = true;
      resolve();
    }, options.budgetMs ?? SCAN_BUDGET_MS);
    timer.unref();
  });
  await Promise.race([Promise.all(CODE_FOLDERS.map((name) => search(path.join(home, name), 1))), timedOut]);
  clearTimeout(timer);
  const repositories = [...found.values()].sort((a, b) => b.modifiedMs - a.modifiedMs || byCodeUnits(a.root, b.root));
  return { repositories, complete: !cutShort };
}

/** When `folder` holding `.git` last changed; undefined when it is no repository. */
async function repositoryModified(folder: string): Promise<number | undefined> {
  const dotGit = path.join(folder, ".git");
  const stat = await fs.lstat(dotGit).catch(() => undefined);
  if (!stat || !(stat.isDirectory() || stat.isFile())) return undefined;
  // The index changes with every add, commit and checkout; a fresh `git init` has none yet.
  const index = stat.isDirectory() ? await fs.stat(path.join(dotGit, "index")).catch(() => undefined) : undefined;
  return Math.max(stat.mtimeMs, index?.mtimeMs ?? 0);
}

/**
 * The repositories found under HOME, from the cache when there is one: a missing cache is made
 * now (the first open waits for one scan), a stale one is answered from and rescanned behind it.
 * A scan cut short by its budget (a busy machine, a slow disk) is answered with what it found and
 * finished behind it with a longer budget, so a half-second's luck does not stand for ten minutes.
 * Repositories gone since the scan are left out. `refreshed` settles when the cache is current.
 */
export async function foundRepositories(
  options: { home?: string; now?: () => number } = {},
): Promise<{ repositories: FoundRepository[]; refreshed: Promise<void> }> {
  const now = options.now ?? Date.now;
  const file = repositoryCacheFile();
  // A cache that cannot be read is rebuilt, as a missing one.
  const cached = await readJsonFile(file, cacheSchema).catch(() => undefined);
  const rescan = async (budgetMs: number) => {
    const scan = await scanWithin({ ...options, budgetMs });
    await writeJsonAtomic(file, { version: 1, scannedAt: now(), ...scan }, { fsync: false });
    return scan;
  };
  // A failed background scan keeps the cache it had; the next open tries again.
  const behind = () =>
    rescan(BACKGROUND_BUDGET_MS).then(
      () => undefined,
      () => undefined,
    );
  if (!cached) {
    const scan = await rescan(SCAN_BUDGET_MS);
    return { repositories: scan.repositories, refreshed: scan.complete ? Promise.resolve() : behind() };
  }
  const stale = !cached.complete || now() - cached.scannedAt > FRESH_MS || cached.scannedAt > now();
  const refreshed = stale ? behind() : Promise.resolve();
  const present = await Promise.all(
    cached.repositories.map(async (r) => (await repositoryModified(r.root)) !== undefined),
  );
  return { repositories: cached.repositories.filter((_, i) => present[i]), refreshed };
}
