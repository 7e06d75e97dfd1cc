import type { AccountQuota } from "../quota/ledger.js";
import { headroom } from "../quota/pipeline.js";
import { clockTime, titleCase } from "./format.js";

/** How one login's quota reads in the views: "23% used, resets 21:00", "limited until 21:00". */
export interface LoginQuotaView {
  /** Used % of the window that decides (the fullest); undefined when nothing is known. */
  usedPercent: number | undefined;
  /** Remaining % (0 when limited). */
  room: number | undefined;
  limited: boolean;
  /** One line for a dropdown or an accessory. */
  summary: string;
  /** The reading is older than `STALE_AFTER_MS`: shown with its age. */
  staleFor?: number;
}

/** Quota readings older than this are marked with their age. */
export const STALE_AFTER_MS = 15 * 60_000;

export function viewLoginQuota(quota: AccountQuota, now: number): LoginQuotaView {
  const room = headroom(quota, new Date(now));
  const limited = room === 0 && quota.limitedUntil !== undefined;
  const blocking = quota.blocking;
  const usedPercent = limited ? 100 : blocking?.usedPercent;
  const age = quota.observedAt ? now - Date.parse(quota.observedAt) : undefined;
  const staleFor = age !== undefined && age > STALE_AFTER_MS ? age : undefined;
  let summary: string;
  if (limited) summary = `limited until ${clockTime(quota.limitedUntil!, now)}`;
  else if (usedPercent === undefined) summary = "quota unknown";
  else {
    const reset = blocking?.resetsAt ? `, resets ${clockTime(blocking.resetsAt, now)}` : "";
    summary = `${Math.round(usedPercent)}% used${reset}`;
  }
  return { usedPercent, room, limited, summary, ...(staleFor !== undefined ? { staleFor } : {}) };
}

/** "Claude · Work: 23% used, resets 21:00" (the Start form's login dropdown). */
export function loginTitle(harnessName: string, label: string, quota: LoginQuotaView): string {
  return `${harnessName.split(" ")[0]} · ${titleCase(label)}: ${quota.summary}`;
}
