import path from "node:path";
import type { Harness } from "../../harnesses/types.js";
import type { Login } from "../foundation/login-model.js";
import { describeError } from "../foundation/errors.js";
import type { QuotaWindow } from "../foundation/events.js";
import { userPaths } from "../foundation/paths.js";
import { blockingWindow } from "./blocking.js";
import { loginKey, readLedgerEntry, storeReading, withReading, type LoginReading, type LedgerEntry } from "./ledger.js";
import { paceOf } from "./pace.js";
import type { QuotaAttempt, QuotaReading } from "../foundation/quota-types.js";
import { localRunner, type ProcessRunner } from "../foundation/runner.js";

export interface QuotaRequest {
  login: Login;
  harness: Harness;
  binary?: string;
  /** The environment of that login's processes. */
  env: NodeJS.ProcessEnv;
  /** How sources start the CLI (`codex app-server`); localRunner when absent. */
  runner?: ProcessRunner;
  now?: Date;
  /** Session files a watcher saw change (sources then read only those). */
  changedFiles?: readonly string[];
}

/**
 * Asks the harness's quota sources in order of trust; the first that answers wins, and every
 * attempt is kept with its reason. The ledger's own knowledge (a limit hit by an Offrun run)
 * is merged in, and windows whose reset has passed read as empty again.
 */
export async function readLoginQuota(request: QuotaRequest): Promise<LoginReading> {
  const now = request.now ?? new Date();
  const entry = await readLedgerEntry(request.login);
  const attempts: QuotaAttempt[] = [];
  let answer: { reading: QuotaReading; source: string } | undefined;
  for (const source of request.harness.quotaSources) {
    if (answer) {
      attempts.push({ source: source.id, outcome: "skipped", reason: `${answer.source} answered first` });
      continue;
    }
    try {
      const reading = await source.read({
        login: request.login,
        binary: request.binary,
        env: request.env,
        runner: request.runner ?? localRunner,
        now,
        cacheDir: path.join(userPaths().cache, "sources", loginKey(request.login), source.id),
        observed: entry.observed,
        ...(request.changedFiles ? { changedFiles: request.changedFiles } : {}),
      });
      if (reading && (reading.windows.length > 0 || reading.limitedUntil !== undefined)) {
        answer = { reading, source: source.id };
        attempts.push({ source: source.id, outcome: "answered" });
      } else {
        attempts.push({ source: source.id, outcome: "no-data", reason: "nothing recorded for this login yet" });
      }
    } catch (error) {
      attempts.push({ source: source.id, outcome: "failed", reason: describeError(error) });
    }
  }
  const quota = summarize(request.login, answer, entry, attempts, now);
  const saw = entry.observed?.recordedAt ?? entry.observed?.observedAt;
  await storeReading(quota, saw).catch(() => undefined); // a cache write failing must not hide the answer
  return quota;
}

/**
 * What the ledger alone knows (the companion's last full reading, Offrun's own observations and
 * limits): no source is asked, so pre-dispatch costs one small file read.
 */
export async function cachedLoginQuota(login: Login, now = new Date()): Promise<LoginReading> {
  const entry = await readLedgerEntry(login);
  const fromLast = entry.last
    ? { reading: { windows: entry.last.windows }, source: entry.last.source ?? "cache" }
    : undefined;
  // A full reading that was made without this very observation in hand (the watcher saw the
  // session file grow and read the ledger before the stream's figures were written down) must not
  // hide them: its usage estimate is stamped "now", later than the exact figures it never saw.
  const observedKey = (o: LedgerEntry["observed"]) => o?.recordedAt ?? o?.observedAt;
  const newerObserved =
    entry.observed &&
    (!entry.last ||
      (entry.lastSawObserved !== undefined
        ? observedKey(entry.observed) !== entry.lastSawObserved
        : !entry.last.observedAt || entry.observed.observedAt > entry.last.observedAt))
      ? { reading: entry.observed, source: "stream" }
      : undefined;
  return summarize(login, newerObserved ?? fromLast, entry, entry.last?.attempts ?? [], now);
}

function summarize(
  login: Login,
  answer: { reading: QuotaReading; source: string } | undefined,
  entry: LedgerEntry,
  attempts: QuotaAttempt[],
  now: Date,
): LoginReading {
  const windows = (answer?.reading.windows ?? []).map((w) => expireWindow(w, now));
  const limitedUntil = latestFuture(
    [entry.limitedUntil, answer?.reading.limitedUntil, ...rejectedResets(windows)],
    now,
  );
  const quota: LoginReading = {
    harness: login.harness,
    label: login.label,
    windows,
    attempts,
    ...(answer ? { source: answer.source, observedAt: windows[0]?.observedAt ?? now.toISOString() } : {}),
  };
  const blocking = blockingWindow(windows);
  if (blocking) quota.blocking = blocking;
  // The pace counts this reading too, though only a full reading (storeReading) keeps it.
  const pace = limitedUntil ? undefined : paceOf(withReading(entry.history, blocking), now.getTime());
  if (pace) quota.pace = pace;
  if (!limitedUntil && entry.limitedUntil !== undefined) quota.recovering = true;
  if (limitedUntil) {
    quota.limitedUntil = limitedUntil;
    const reason = entry.limitedUntil === limitedUntil ? entry.limitReason : undefined;
    quota.limitReason = reason ?? `limit reached${blocking ? ` (${blocking.kind})` : ""}`;
  }
  return quota;
}

/** A window whose reset has passed is empty again, whatever it said before. */
export function expireWindow(window: QuotaWindow, now: Date): QuotaWindow {
  if (window.resetsAt === undefined || Date.parse(window.resetsAt) > now.getTime()) return window;
  const expired: QuotaWindow = { ...window, usedPercent: 0, status: "allowed" };
  delete expired.resetsAt;
  return expired;
}

function rejectedResets(windows: QuotaWindow[]): (string | undefined)[] {
  return windows.filter((w) => w.status === "rejected" || (w.usedPercent ?? 0) >= 100).map((w) => w.resetsAt);
}

function latestFuture(times: (string | undefined)[], now: Date): string | undefined {
  const future = times.filter((t): t is string => t !== undefined && Date.parse(t) > now.getTime());
  return future.sort((a, b) => Date.parse(b) - Date.parse(a))[0];
}

export { blockingWindow } from "./blocking.js";

/** Remaining % of the blocking window; 0 when limited; undefined when nothing is known. */
export function headroom(quota: LoginReading, now = new Date()): number | undefined {
  if (quota.limitedUntil !== undefined && Date.parse(quota.limitedUntil) > now.getTime()) return 0;
  const blocking = quota.blocking;
  if (!blocking) return undefined;
  if (blocking.status === "rejected") return 0;
  return blocking.usedPercent === undefined ? undefined : Math.max(0, 100 - blocking.usedPercent);
}
