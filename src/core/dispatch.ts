import type { Harness } from "../harnesses/types.js";
import type { Account } from "./account-model.js";
import { OffrunError } from "./errors.js";
import { accountKey, type AccountQuota } from "./quota/ledger.js";
import { headroom } from "./quota/pipeline.js";

/** Above this share used in every login, a start comes with a warning. */
export const CROWDED_PERCENT = 90;
/** Each start already heading to a login counts as this much less room, so concurrent starts spread out. */
const IN_FLIGHT_PENALTY = 15;

export interface Candidate {
  account: Account;
  quota: AccountQuota;
}

export interface Pick {
  account: Account;
  quota: AccountQuota;
  /** Every candidate with the room it was ranked by, best first (for the log and --json). */
  ranking: { label: string; room: number | undefined; skipped?: string }[];
  warning?: string;
}

/**
 * Picks the login with the most headroom: highest remaining % of its blocking window, less a
 * penalty for starts already on their way to it; unknown ranks below known-with-room. A limited
 * login is never picked unless forced, and a login just back from a limit takes one turn at a time.
 */
export function pickAccount(
  harness: Harness,
  candidates: Candidate[],
  options: { inFlight: ReadonlyMap<string, number>; exclude?: ReadonlySet<string>; force?: boolean; now?: Date },
): Pick {
  const now = options.now ?? new Date();
  const ranking: Pick["ranking"] = [];
  const usable: { candidate: Candidate; score: number; room: number | undefined }[] = [];
  for (const candidate of candidates) {
    const key = accountKey(candidate.account);
    const room = headroom(candidate.quota, now);
    const busy = options.inFlight.get(key) ?? 0;
    let skipped: string | undefined;
    if (options.exclude?.has(key)) skipped = "already tried";
    else if (room === 0 && !options.force) skipped = `limited until ${candidate.quota.limitedUntil ?? "its reset"}`;
    else if (candidate.quota.recovering && busy > 0) skipped = "just back from a limit; one turn at a time";
    ranking.push({ label: candidate.account.label, room, ...(skipped ? { skipped } : {}) });
    if (skipped) continue;
    // Unknown headroom ranks below any login known to have room.
    const base = room ?? 0;
    usable.push({ candidate, room, score: base - busy * IN_FLIGHT_PENALTY });
  }
  usable.sort(
    (a, b) => b.score - a.score || Number(b.candidate.account.isDefault) - Number(a.candidate.account.isDefault),
  );
  const best = usable[0];
  if (!best) throw noRoom(harness, candidates, now);
  ranking.sort((a, b) => (b.room ?? -1) - (a.room ?? -1));
  const known = usable.map((u) => u.room).filter((r): r is number => r !== undefined);
  const crowded = known.length === usable.length && known.every((room) => room < 100 - CROWDED_PERCENT);
  return {
    account: best.candidate.account,
    quota: best.candidate.quota,
    ranking,
    ...(crowded
      ? {
          warning: `Every ${harness.displayName} login is above ${CROWDED_PERCENT}% of its limit; this agent may stop soon.`,
        }
      : {}),
  };
}

function noRoom(harness: Harness, candidates: Candidate[], now: Date): OffrunError {
  const resets = candidates
    .map((c) => c.quota.limitedUntil)
    .filter((t): t is string => t !== undefined && Date.parse(t) > now.getTime())
    .sort();
  const when = resets[0] ? ` The first resets at ${new Date(resets[0]).toLocaleString()}.` : "";
  return new OffrunError(
    "usage_limit",
    `Every ${harness.displayName} login is limited.${when} Start on another harness (--harness), add a login (\`offrun accounts add ${harness.id} <label>\`), or pass --force to send it anyway.`,
  );
}
