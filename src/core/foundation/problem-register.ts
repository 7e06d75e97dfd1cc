import fs from "node:fs/promises";
import path from "node:path";
import * as z from "zod";
import { userPaths } from "./paths.js";
import type { StateProblem } from "./state-problems.js";
import { readJsonFile, writeJsonAtomic } from "./store.js";

/**
 * `~/.offrun/problems.json`: the problems with Offrun's own files that the companion found
 * (state-problems.ts), kept for the faces that did not read the file themselves. Most such files
 * are read only by the companion, and some it repairs at once, so a later `offrun ls` or the menu
 * bar would otherwise never learn of them. Only the companion writes it.
 *
 * A problem is shown while it still holds, judged when it is read, so fixing the file takes it
 * away at once (no companion restart):
 * - one Offrun worked around but could not fix (an empty accounts.json, a cut-short hosts.json)
 *   holds while the file is as it was found (its size and modification time);
 * - one Offrun repaired (a rebuilt projects.json, a quota cache started afresh, a rewritten
 *   state.json) is nothing to do, but something was lost: it is told for a day after.
 */

/** How long a repaired file is still told of. */
export const REPAIRED_SHOWN_MS = 24 * 60 * 60 * 1000;
/** The register keeps the newest problems only: a file damaged over and over must not grow it. */
const KEPT = 50;

const fingerprintSchema = z.object({ size: z.number(), mtimeMs: z.number() });
type Fingerprint = z.infer<typeof fingerprintSchema>;

const entrySchema = z.object({
  file: z.string(),
  message: z.string(),
  at: z.string(),
  repaired: z.boolean().optional(),
  /** The file as it was found (absent: it could not be read then). */
  found: fingerprintSchema.optional(),
});
type Entry = z.infer<typeof entrySchema>;

const registerSchema = z.object({ version: z.literal(1), problems: z.array(entrySchema) });

const registerFile = () => path.join(userPaths().home, "problems.json");

async function fingerprint(file: string): Promise<Fingerprint | undefined> {
  const stat = await fs.stat(file).catch(() => undefined);
  return stat ? { size: stat.size, mtimeMs: stat.mtimeMs } : undefined;
}

async function holds(entry: Entry, now: number): Promise<boolean> {
  if (entry.repaired) return now - Date.parse(entry.at) < REPAIRED_SHOWN_MS;
  const current = await fingerprint(entry.file);
  if (entry.found === undefined || current === undefined) return entry.found === current;
  return current.size === entry.found.size && current.mtimeMs === entry.found.mtimeMs;
}

/** The register's entries; a damaged register is no problem to tell of: the next keep writes it anew. */
async function readEntries(): Promise<Entry[]> {
  const register = await readJsonFile(registerFile(), registerSchema).catch(() => undefined);
  return register?.problems ?? [];
}

async function stillHolding(entries: Entry[], now: number): Promise<Entry[]> {
  const kept = await Promise.all(entries.map(async (entry) => ((await holds(entry, now)) ? entry : undefined)));
  return kept.filter((entry): entry is Entry => entry !== undefined);
}

let writing: Promise<void> = Promise.resolve();

/**
 * Keeps a problem for the faces (the companion calls it for each one reported), in place of an
 * older one about the same file; what no longer holds is dropped. Writes one after another.
 */
export function keepStateProblem(problem: StateProblem, now = Date.now()): Promise<void> {
  const next = writing.then(async () => {
    const found = problem.repaired ? undefined : await fingerprint(problem.file);
    const entry: Entry = {
      file: problem.file,
      message: problem.message,
      at: new Date(now).toISOString(),
      ...(problem.repaired ? { repaired: true } : {}),
      ...(found ? { found } : {}),
    };
    const others = (await stillHolding(await readEntries(), now)).filter((e) => e.file !== problem.file);
    await writeJsonAtomic(registerFile(), { version: 1, problems: [...others, entry].slice(-KEPT) }, { fsync: false });
  });
  writing = next.catch(() => undefined);
  return next;
}

/** The kept problems that still hold (see above), oldest first. */
export async function keptStateProblems(now = Date.now()): Promise<StateProblem[]> {
  const entries = await stillHolding(await readEntries(), now);
  return entries.map(({ file, message, repaired }) => ({ file, message, ...(repaired ? { repaired } : {}) }));
}
