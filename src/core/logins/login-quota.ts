import type { LoginReading } from "../quota/ledger.js";
import { currentPace, windowPace, type Pace } from "../quota/pace.js";
import { headroom } from "../quota/pipeline.js";
import type { SignInState } from "./sign-in.js";
import { titleCase } from "../foundation/format.js";
import { clockTime, limitedUntilText } from "../foundation/time-words.js";
import { windowLengthMs, windowText } from "../quota/quota-window.js";

/** How one login's quota reads in the views: "5-Hour 23% used · resets 21:00", "limited until 21:00", "signed out". */
export interface LoginQuotaView {
  /** Used % of the window that decides (the fullest); undefined when nothing is known. */
  usedPercent: number | undefined;
  /** Remaining % (0 when limited). */
  room: number | undefined;
  limited: boolean;
  /** The login cannot run until it signs in again. */
  signedOut: boolean;
  /** One line for a dropdown or an accessory. */
  summary: string;
  /** "out ~16:40 at this pace" or "lasts past its reset", when the login's recent use tells. */
  pace?: string;
  /** The reading is older than `STALE_AFTER_MS`: shown with its age. */
  staleFor?: number;
}

/** What the views know of a login beyond its quota reading. */
export interface LoginFacts {
  /** The cached sign-in state (src/core/logins/sign-in.ts); absent when not looked up. */
  signIn?: SignInState;
  /** The harness's quotaCoverage: "limits" when only limit hits are ever known. */
  coverage?: "percent" | "limits";
}

/** Quota readings older than this are marked with their age. */
export const STALE_AFTER_MS = 15 * 60_000;

/** What a limits-only CLI's login says when no limit is in force: the truth, not "unknown". */
export const LIMITS_ONLY = "no usage data: limits only";

/** The command that signs a login in again (the CLI's own login flow in its home). */
export function signInCommand(login: { harness: string; label: string }): string {
  return `offrun logins login ${login.harness} ${login.label}`;
}

/** "out ~16:40 at this pace", "lasts past its reset", or undefined when the pace is unknown or over. */
export function paceText(pace: Pace | undefined, now: number): string | undefined {
  const current = currentPace(pace, now);
  if (current?.runsOutAt) return `out ~${clockTime(current.runsOutAt, now)} at this pace`;
  if (current?.lastsPastReset) return "lasts past its reset";
  return undefined;
}

/**
 * "1.4×": how fast a window is used against its clock (quota/pace.ts windowPace), or undefined
 * when that cannot be told yet. docs/cli.md explains the PACE column of `offrun quota` with it.
 */
export function windowPaceText(window: { kind: string; usedPercent?: number; resetsAt?: string }, now: number) {
  const pace = windowPace(window, windowLengthMs(window.kind), now);
  return pace ? `${pace.ratio.toFixed(1)}×` : undefined;
}

export function viewLoginQuota(quota: LoginReading, now: number, facts: LoginFacts = {}): LoginQuotaView {
  const room = headroom(quota, new Date(now));
  const limited = room === 0 && quota.limitedUntil !== undefined;
  const signedOut = facts.signIn === "signed-out";
  const blocking = quota.blocking;
  const usedPercent = limited ? 100 : blocking?.usedPercent;
  const age = quota.observedAt ? now - Date.parse(quota.observedAt) : undefined;
  const staleFor = age !== undefined && age > STALE_AFTER_MS ? age : undefined;
  const pace = limited || signedOut ? undefined : paceText(quota.pace, now);
  let summary: string;
  // Signed out first: a login that cannot run has no room, whatever its last reading said.
  if (signedOut) summary = "signed out";
  else if (limited) summary = limitedUntilText(quota.limitedUntil, now);
  else if (usedPercent === undefined) summary = facts.coverage === "limits" ? LIMITS_ONLY : "quota unknown";
  else {
    // The deciding window as every face writes it; a reading with no window named is the share used.
    const window = blocking ? windowText({ ...blocking, usedPercent }, now) : `${Math.round(usedPercent)}% used`;
    summary = `${window}${pace ? ` · ${pace}` : ""}`;
  }
  return {
    usedPercent,
    room,
    limited,
    signedOut,
    summary,
    ...(pace ? { pace } : {}),
    ...(staleFor !== undefined ? { staleFor } : {}),
  };
}

/** "Claude · Work: 5-Hour 23% used · resets 21:00" (the Start form's login dropdown). */
export function loginTitle(harnessName: string, label: string, quota: LoginQuotaView): string {
  return `${harnessName.split(" ")[0]} · ${titleCase(label)}: ${quota.summary}`;
}
