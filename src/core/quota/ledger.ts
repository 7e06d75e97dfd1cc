import path from "node:path";
import * as z from "zod";
import { quotaWindowSchema, type QuotaWindow } from "../foundation/events.js";
import { describeError } from "../foundation/errors.js";
import { userPaths } from "../foundation/paths.js";
import { reportStateProblem } from "../foundation/state-problems.js";
import { readJsonFile, withFileLock, writeJsonAtomic } from "../foundation/store.js";
import { blockingWindow } from "./blocking.js";
import { addReading, paceReadingSchema, readingOf, type PaceReading } from "./pace.js";
import { loginReadingSchema, type LoginReading } from "./row.js";

/**
 * `~/.offrun/cache/quota.json`: what Offrun knows of each login's quota without asking anyone:
 * the last reading its own runs saw in their streams, when a login hit its limit, and the last
 * full reading (so `offrun quota` and the menu bar answer at once).
 */
const readingSchema = z.object({
  windows: z.array(quotaWindowSchema),
  limitedUntil: z.string().optional(),
  observedAt: z.string(),
  /** When Offrun wrote it down (the windows' observedAt is when the stream said it). */
  recordedAt: z.string().optional(),
});

export type { LoginReading };

const entrySchema = z.object({
  observed: readingSchema.optional(),
  limitedUntil: z.string().optional(),
  limitReason: z.string().optional(),
  last: loginReadingSchema().optional(),
  /** The stream observation (its recordedAt) the pipeline had in hand when it made `last`; "" for none. */
  lastSawObserved: z.string().optional(),
  /** Recent readings of the blocking window, oldest first, for the pace (bounded: see pace.ts). */
  history: z.array(paceReadingSchema).optional(),
});
export type LedgerEntry = z.infer<typeof entrySchema>;

const ledgerSchema = z.object({
  version: z.literal(1),
  // `accounts` holds the logins' readings: the key is kept for files of earlier versions.
  accounts: z.record(z.string(), entrySchema),
});
type Ledger = z.infer<typeof ledgerSchema>;

export function loginKey(login: { harness: string; label: string }): string {
  return `${login.harness}/${login.label}`;
}

function ledgerFile(): string {
  return path.join(userPaths().cache, "quota.json");
}

export async function readLedger(): Promise<Ledger> {
  const ledger = await readJsonFile(ledgerFile(), ledgerSchema, "Delete it; Offrun rebuilds its quota cache.").catch(
    (error: unknown) => {
      // A cache: a damaged one is rebuilt, never a reason to fail; but said, once.
      const problem = `${describeError(error).split("\n")[0]} Offrun starts the quota cache afresh; readings come back with the next turn or refresh.`;
      reportStateProblem({ file: ledgerFile(), message: problem, repaired: true });
      return undefined;
    },
  );
  return ledger ?? { version: 1, accounts: {} };
}

export async function readLedgerEntry(login: { harness: string; label: string }): Promise<LedgerEntry> {
  return (await readLedger()).accounts[loginKey(login)] ?? {};
}

/**
 * Changes one login's entry under a lock: the companion and the CLI both write this file.
 * The change function gets the current entry and returns the new one.
 */
export async function updateLedgerEntry(
  login: { harness: string; label: string },
  change: (entry: LedgerEntry) => LedgerEntry,
): Promise<void> {
  const file = ledgerFile();
  await withFileLock(file, async () => {
    const ledger = await readLedger();
    const key = loginKey(login);
    ledger.accounts[key] = change(ledger.accounts[key] ?? {});
    await writeJsonAtomic(file, ledger, { fsync: false });
  });
}

/** A quota reading from one of Offrun's own runs (a stream's rate-limit event). */
export async function recordObserved(
  login: { harness: string; label: string },
  reading: z.infer<typeof readingSchema>,
): Promise<void> {
  await updateLedgerEntry(login, (entry) => ({
    ...entry,
    observed: { ...reading, recordedAt: new Date().toISOString() },
    history: withReading(entry.history, blockingWindow(reading.windows)),
  }));
}

/** The pace history with the blocking window's reading added (unchanged when it has no used %). */
export function withReading(history: PaceReading[] | undefined, blocking: QuotaWindow | undefined): PaceReading[] {
  const reading = blocking ? readingOf(blocking) : undefined;
  return reading ? addReading(history ?? [], reading) : (history ?? []);
}

/** The login hit its usage limit: it is limited until the reset. */
export async function markLimited(
  login: { harness: string; label: string },
  until: string,
  reason: string,
): Promise<void> {
  await updateLedgerEntry(login, (entry) => ({ ...entry, limitedUntil: until, limitReason: reason }));
}

/**
 * A turn on the login completed: whatever limit it had is over. Until then a login whose reset
 * has passed is on probation (one dispatch at a time), so that it is not flooded the moment it
 * comes back.
 */
export async function markHealthy(login: { harness: string; label: string }): Promise<void> {
  const entry = await readLedgerEntry(login);
  if (entry.limitedUntil === undefined) return;
  await updateLedgerEntry(login, (current) => {
    const next = { ...current };
    delete next.limitedUntil;
    delete next.limitReason;
    return next;
  });
}

/** A full reading; `sawObserved` names the stream observation the pipeline read before it asked the sources. */
export async function storeReading(quota: LoginReading, sawObserved?: string): Promise<void> {
  await updateLedgerEntry(quota, (entry) => ({
    ...entry,
    last: quota,
    lastSawObserved: sawObserved ?? "",
    history: withReading(entry.history, quota.blocking),
  }));
}

/**
 * A login was renamed: its entry (readings, limit, last full reading) moves to the new label, so
 * its quota and any limit stay in view. It replaces an entry left under that label by a login
 * removed before; nothing happens when the old label has none.
 */
export async function renameLedgerEntry(harness: string, from: string, to: string): Promise<void> {
  const file = ledgerFile();
  await withFileLock(file, async () => {
    const ledger = await readLedger();
    const entry = ledger.accounts[loginKey({ harness, label: from })];
    if (!entry) return;
    delete ledger.accounts[loginKey({ harness, label: from })];
    ledger.accounts[loginKey({ harness, label: to })] = entry.last
      ? { ...entry, last: { ...entry.last, label: to } }
      : entry;
    await writeJsonAtomic(file, ledger, { fsync: false });
  });
}
