import * as z from "zod";

/** The label of every harness's Default login: the CLI's own home, adopted as it is. */
export const DEFAULT_LOGIN = "default";

/** One added login in `~/.offrun/accounts.json` (mode 0600). The Default logins are not stored. */
export const loginEntrySchema = z.object({
  harness: z.string().min(1),
  label: z.string().min(1),
  /** The CLI home of this login: `~/.offrun/accounts/<harness>/<label>/` or an adopted folder. */
  home: z.string().min(1),
  /** True when the home was the user's before (never deleted, even with --purge). */
  adopted: z.boolean().default(false),
  /** Extra environment for every process of this login (a gateway's base URL, say). */
  env: z.record(z.string(), z.string()).default({}),
  createdAt: z.string(),
});
export type LoginEntry = z.infer<typeof loginEntrySchema>;

export const loginsFileSchema = z.object({
  version: z.literal(1),
  // `accounts` lists the logins: the key (and accounts.json's name) is kept for files of earlier versions.
  accounts: z.array(loginEntrySchema),
  /**
   * Per harness id, the login the user set as default (`offrun logins default`): what Start Agent
   * preselects. Not the Default login (the CLI's own home), though it may name it. Without an entry,
   * the login with the most headroom is preselected.
   */
  defaults: z.record(z.string(), z.string()).optional(),
  /**
   * Per login ("<harness>/<label>", the Default logins included), the room it keeps for the user:
   * below this remaining %, automatic picks (start, failover, review) pass it by; pinning still works.
   */
  reserves: z.record(z.string(), z.number().min(0).max(100)).optional(),
});
export type LoginsFile = z.infer<typeof loginsFileSchema>;

/** A login as the rest of Offrun sees it, the Default one included. */
export interface Login {
  harness: string;
  label: string;
  home: string;
  isDefault: boolean;
  adopted: boolean;
  env: Record<string, string>;
  /** Remaining % kept back from automatic picks (0: none). */
  reservePercent?: number;
}

/** Who a login is, from the CLI's status command or non-secret files; never from credentials. */
export interface LoginIdentity {
  /** undefined when the CLI could not say (not installed, timed out). */
  signedIn: boolean | undefined;
  email?: string;
  /** Plan, organisation or auth method, as the CLI names it. */
  detail?: string;
  /** Why signedIn is unknown, or what the CLI said. */
  note?: string;
}
