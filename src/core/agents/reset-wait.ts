import { earliestReset, type Candidate } from "../logins/ranking.js";
import { clockTime } from "../foundation/time-words.js";

/**
 * When every login of a CLI is limited, the agent waits for the earliest reset and goes on by
 * itself. The reset time the CLI gave is the truth: the wait ends a little after it (jitter, so
 * that several agents waiting on one login do not arrive in the same second), never before.
 */

/** Spread of the wake-up after the reset. */
export const RESET_JITTER_MS = { min: 2_000, max: 15_000 } as const;
/** Limits last a week at most (the weekly window): a reset further away is not waited for. */
export const LONGEST_WAIT_MS = 8 * 86_400_000;

export interface ResetWaitPlan {
  /** When it goes on (absent: it does not wait, and `message` says why). */
  at?: string;
  /** The login that resets first. */
  login: string;
  /** False when the CLI named no reset time and Offrun backs off instead. */
  resetGiven: boolean;
  /** One line for the log, `ls` and the menu bar: "Resumes 03:00 on work, when its limit resets." */
  message: string;
}

export function planResetWait(
  candidates: readonly Candidate[],
  options: {
    harnessName: string;
    /** Whether the last limit hit named its reset time. */
    resetGiven: boolean;
    /** The login whose limit ended the last turn. */
    lastLogin?: string;
    /**
     * The last limit this message hit. When its reset has already passed (it came while the
     * failover ran), that login is due now: the wait is just the jitter.
     */
    lastLimit?: { login: string; until: string };
    now?: Date;
    random?: () => number;
  },
): ResetWaitPlan {
  const now = options.now ?? new Date();
  const random = options.random ?? Math.random;
  const passed =
    options.lastLimit && Date.parse(options.lastLimit.until) <= now.getTime() ? options.lastLimit : undefined;
  const first = earliestReset(candidates, now) ?? (passed ? now.toISOString() : undefined);
  const label =
    candidates.find((c) => c.quota.limitedUntil !== undefined && c.quota.limitedUntil === first)?.login.label ??
    passed?.login ??
    "";
  const all = `Every ${options.harnessName} login is limited`;
  if (!first) {
    return {
      login: label,
      resetGiven: false,
      message: `${all}, and none has a reset time ahead, so Offrun cannot wait for one. Send a message to try again.`,
    };
  }
  const ahead = Date.parse(first) - now.getTime();
  if (ahead > LONGEST_WAIT_MS) {
    return {
      login: label,
      resetGiven: true,
      message: `${all}; the first reset the CLI gave is ${new Date(first).toISOString()}, more than 8 days away, which no usage window lasts, so Offrun does not wait for it. Check \`offrun quota\`, then send a message to try again.`,
    };
  }
  const jitter = RESET_JITTER_MS.min + random() * (RESET_JITTER_MS.max - RESET_JITTER_MS.min);
  const at = new Date(Date.parse(first) + jitter).toISOString();
  const resetGiven = options.resetGiven || options.lastLogin !== label;
  const when = clockTime(at, now.getTime());
  return {
    at,
    login: label,
    resetGiven,
    message: resetGiven
      ? `${all}. Resumes ${when} on ${label}, when its limit resets.`
      : `${all}, and the CLI gave no reset time, so Offrun backs off: it tries once more at ${when} on ${label}.`,
  };
}
