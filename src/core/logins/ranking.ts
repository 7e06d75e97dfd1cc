import type { Harness } from "../../harnesses/types.js";
import type { Login } from "../foundation/login-model.js";
import { OffrunError } from "../foundation/errors.js";
import { limitedUntilText, resetsText } from "../foundation/time-words.js";
import { loginKey, type LoginReading } from "../quota/ledger.js";
import { headroom } from "../quota/pipeline.js";
import { isNeverUsed, type SignInEntry } from "./sign-in.js";

/** Above this share used in every login, a start comes with a warning. */
export const CROWDED_PERCENT = 90;
/** Each start already heading to a login counts as this much less room, so concurrent starts spread out. */
const IN_FLIGHT_PENALTY = 15;
/**
 * Room that resets soon is room that expires unused: a login whose deciding window resets now
 * counts this many points more, falling to nothing for a reset RESET_HORIZON_MS or more away. So
 * between logins with similar room the sooner reset wins, and a much emptier login still wins.
 */
const RESET_BONUS = 10;
const RESET_HORIZON_MS = 5 * 3600_000;

export interface Candidate {
  login: Login;
  quota: LoginReading;
  /** What Offrun knows of its sign-in; absent means unknown. */
  signIn?: SignInEntry;
}

export interface Pick {
  login: Login;
  quota: LoginReading;
  /** Every candidate with the room it was ranked by, best first (for the log and --json). */
  ranking: { label: string; room: number | undefined; skipped?: string }[];
  warning?: string;
}

/**
 * Picks the login with the most headroom: signed-in logins before ones whose sign-in is unknown;
 * then the highest remaining % of its blocking window, less a penalty for starts already on their
 * way to it, plus a little for a reset that comes soon; unknown room ranks below known room. A
 * signed-out login is never picked; a limited one only when forced; one below its reserve only when
 * forced; and a login just back from a limit takes one turn at a time.
 */
export function pickLogin(
  harness: Harness,
  candidates: Candidate[],
  options: {
    inFlight: ReadonlyMap<string, number>;
    exclude?: ReadonlySet<string>;
    force?: boolean;
    now?: Date;
    /**
     * The login to take whenever it can run (not skipped): the one a wait for a reset named, so
     * that "Resumes 14:57 on personal" goes on on personal, not on a login that ranks higher then.
     */
    prefer?: string;
  },
): Pick {
  const now = options.now ?? new Date();
  const ranking: Pick["ranking"] = [];
  const usable: {
    candidate: Candidate;
    score: number;
    room: number | undefined;
    signedIn: boolean;
    neverUsed: boolean;
  }[] = [];
  for (const candidate of candidates) {
    const key = loginKey(candidate.login);
    const room = headroom(candidate.quota, now);
    const busy = options.inFlight.get(key) ?? 0;
    const reserve = candidate.login.reservePercent ?? 0;
    let skipped: string | undefined;
    if (options.exclude?.has(key)) skipped = "already tried";
    else if (candidate.signIn?.state === "signed-out")
      skipped = `signed out (${candidate.signIn.note ?? "its CLI says so"})`;
    else if (room === 0 && !options.force) skipped = limitedUntilText(candidate.quota.limitedUntil, now.getTime());
    else if (room !== undefined && reserve > 0 && room < reserve && !options.force)
      skipped = `below its ${reserve}% reserve`;
    else if (candidate.quota.recovering && busy > 0) skipped = "just back from a limit; one turn at a time";
    ranking.push({ label: candidate.login.label, room, ...(skipped ? { skipped } : {}) });
    if (skipped) continue;
    // Unknown headroom ranks below any login known to have room.
    const score = (room ?? 0) - busy * IN_FLIGHT_PENALTY + (room === undefined ? 0 : resetBonus(candidate.quota, now));
    usable.push({
      candidate,
      room,
      score,
      signedIn: candidate.signIn?.state === "signed-in",
      neverUsed: isNeverUsed(candidate.signIn),
    });
  }
  // Signed in first; a Default login whose home was never made last (with logins added in their
  // own homes and ~/.claude never used, a tie went to the Default login, which was not signed in).
  usable.sort(
    (a, b) =>
      Number(b.signedIn) - Number(a.signedIn) ||
      Number(a.neverUsed) - Number(b.neverUsed) ||
      b.score - a.score ||
      Number(b.candidate.login.isDefault) - Number(a.candidate.login.isDefault),
  );
  const best = usable.find((u) => u.candidate.login.label === options.prefer) ?? usable[0];
  if (!best) throw noRoom(harness, candidates, ranking, now);
  ranking.sort((a, b) => (b.room ?? -1) - (a.room ?? -1));
  const known = usable.map((u) => u.room).filter((r): r is number => r !== undefined);
  const crowded = known.length === usable.length && known.every((room) => room < 100 - CROWDED_PERCENT);
  return {
    login: best.candidate.login,
    quota: best.candidate.quota,
    ranking,
    ...(crowded
      ? {
          warning: `Every ${harness.displayName} login is above ${CROWDED_PERCENT}% of its limit; this agent may stop soon.`,
        }
      : {}),
  };
}

function resetBonus(quota: LoginReading, now: Date): number {
  const resetsAt = quota.blocking?.resetsAt;
  if (resetsAt === undefined) return 0;
  const ahead = Date.parse(resetsAt) - now.getTime();
  if (!(ahead > 0)) return 0;
  return RESET_BONUS * Math.max(0, 1 - ahead / RESET_HORIZON_MS);
}

/** The earliest future reset among limited logins that are not signed out, or undefined when none says. */
export function earliestReset(candidates: readonly Candidate[], now = new Date()): string | undefined {
  return candidates
    .filter((c) => c.signIn?.state !== "signed-out")
    .map((c) => c.quota.limitedUntil)
    .filter((t): t is string => t !== undefined && Date.parse(t) > now.getTime())
    .sort((a, b) => Date.parse(a) - Date.parse(b))[0];
}

function noRoom(harness: Harness, candidates: Candidate[], ranking: Pick["ranking"], now: Date): OffrunError {
  const signedOut = candidates.filter((c) => c.signIn?.state === "signed-out").map((c) => c.login.label);
  const first = earliestReset(candidates, now);
  const when = first ? ` The first ${resetsText(first, now.getTime())}.` : "";
  if (
    signedOut.length > 0 &&
    !first &&
    ranking.every((r) => r.skipped?.startsWith("signed out") || r.skipped === "already tried")
  ) {
    return new OffrunError(
      "not_logged_in",
      `No ${harness.displayName} login that is signed in is left to try (signed out: ${signedOut.join(", ")}). Sign one in with \`offrun logins login ${harness.id} ${signedOut[0]}\`, add one (\`offrun logins add ${harness.id} <label>\`), or start on another harness (--harness).`,
    );
  }
  const reserved = ranking.filter((r) => r.skipped?.startsWith("below its")).map((r) => r.label);
  const keep = reserved.length > 0 ? ` Logins kept in reserve: ${reserved.join(", ")} (pin one with --login).` : "";
  return new OffrunError(
    "usage_limit",
    `Every ${harness.displayName} login is limited${signedOut.length > 0 ? ` or signed out (${signedOut.join(", ")})` : ""}.${when}${keep} Start on another harness (--harness), add a login (\`offrun logins add ${harness.id} <label>\`), or pass --force to send it anyway.`,
  );
}
