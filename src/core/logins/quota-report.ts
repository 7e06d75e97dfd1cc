import type { QuotaListRow } from "../quota/row.js";
import { headroom } from "../quota/pipeline.js";
import { quotaOfAllLogins } from "./quota-refresh.js";
import { signInCommand } from "./login-quota.js";

/**
 * What `offrun quota --json` prints for each login, and what a remote companion answers to
 * `quota.list`; with the names of the CLIs that are not installed, which the table folds into a line.
 */
export async function quotaReport(
  options: { fresh?: boolean; projectRoot?: string; now?: Date } = {},
): Promise<{ rows: QuotaListRow[]; customError?: string; notInstalled: string[] }> {
  const { logins, customError, notInstalled } = await quotaOfAllLogins({
    fresh: options.fresh,
    projectRoot: options.projectRoot,
  });
  const now = options.now ?? new Date();
  const rows = logins.map(({ login, harness, quota, signIn, installed }): QuotaListRow => ({
    ...quota,
    displayName: harness.displayName,
    installed,
    home: login.home,
    headroom: headroom(quota, now) ?? null,
    coverage: harness.quotaCoverage,
    signIn: {
      state: signIn.state,
      ...(signIn.note ? { note: signIn.note } : {}),
      ...(signIn.state === "signed-out" ? { command: signInCommand(login) } : {}),
    },
    pace: quota.limitedUntil ? {} : (quota.pace ?? {}),
  }));
  return {
    rows,
    notInstalled: notInstalled.map((harness) => harness.displayName),
    ...(customError ? { customError } : {}),
  };
}
