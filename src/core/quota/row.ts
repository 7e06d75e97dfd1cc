import * as z from "zod";
import { quotaWindowSchema } from "../foundation/events.js";
import { once } from "../foundation/lazy-schemas.js";
import { paceSchema } from "./pace.js";

/**
 * One login's quota, the one shape of it: the ledger keeps it (its last full reading),
 * `~/.offrun/state.json` lists it for the menu bar, and a companion answers `quota.list` (and
 * `offrun quota --json` prints) with it. Where more of its optional fields must be there, the
 * schema below says which. Built on first use (foundation/lazy-schemas.ts).
 */

/** A login's sign-in as last checked (logins/sign-in.ts checks it). */
export const SIGN_IN_STATES = ["signed-in", "signed-out", "unknown"] as const;

export const QUOTA_ATTEMPT_OUTCOMES = ["answered", "no-data", "failed", "skipped"] as const;

export const quotaRowSchema = once(() =>
  z.object({
    /** A login of another machine's CLI (core/remote); absent for this machine's. */
    host: z.string().optional(),
    harness: z.string(),
    label: z.string(),
    windows: z.array(quotaWindowSchema),
    /** The window that decides whether the login has room (the fullest one). */
    blocking: quotaWindowSchema.optional(),
    limitedUntil: z.string().optional(),
    limitReason: z.string().optional(),
    /** Its limit has reset but no turn has succeeded on it since: one dispatch at a time. */
    recovering: z.boolean().optional(),
    /** The source that answered, and when the reading was made. */
    source: z.string().optional(),
    observedAt: z.string().optional(),
    /** Every source tried, with why it said nothing (state.json leaves them out). */
    attempts: z
      .array(z.object({ source: z.string(), outcome: z.enum(QUOTA_ATTEMPT_OUTCOMES), reason: z.string().optional() }))
      .optional(),
    /** When the blocking window runs out at the login's recent rate (from the ledger's history). */
    pace: paceSchema.optional(),
    // What a face shows beside the reading (quota/report.ts adds it; the ledger has none of it).
    /** The CLI's name as people know it ("Claude Code"). */
    displayName: z.string().optional(),
    /** False when its CLI is not installed (a login added before it went); absent from an older host. */
    installed: z.boolean().optional(),
    home: z.string().optional(),
    /** The percent of room left in the blocking window; null when no source knows. */
    headroom: z.number().nullable().optional(),
    /** "limits" for a CLI whose quota sources only know limit hits. */
    coverage: z.enum(["percent", "limits"]).optional(),
    /** The cached sign-in state (a signed-out login shows as such, with its sign-in command). */
    signIn: z
      .object({
        /** A state this version does not know (a newer host's) reads as unknown. */
        state: z.enum(SIGN_IN_STATES).catch("unknown"),
        note: z.string().optional(),
        command: z.string().optional(),
      })
      .optional(),
  }),
);
export type QuotaRow = z.infer<ReturnType<typeof quotaRowSchema>>;

/** A login's reading as the quota pipeline makes it and the ledger keeps it: with each source tried. */
export const loginReadingSchema = once(() => quotaRowSchema().required({ attempts: true }));
export type LoginReading = z.infer<ReturnType<typeof loginReadingSchema>>;

/** A row of `quota.list` and `offrun quota --json`: with everything a face on another machine renders. */
export const quotaListRowSchema = once(() =>
  quotaRowSchema().required({
    attempts: true,
    pace: true,
    displayName: true,
    home: true,
    headroom: true,
    coverage: true,
    signIn: true,
  }),
);
export type QuotaListRow = z.infer<ReturnType<typeof quotaListRowSchema>>;
