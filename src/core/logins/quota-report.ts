import type { QuotaListRow } from "../quota/row.js";
import { headroom } from "../quota/pipeline.js";
import { quotaOfAllLogins } from "./quota-refresh.js";
import { signInCommand } from "./login-quota.js";

/** What `offrun quota --json` prints for each login, and what a remote companion answers to `quota.list`. */
export async function quotaReport(
  options: { fresh?: boolean; projectRoot?: string; now?: Date } = {},
): Promise<{ rows: QuotaListRow[]; customError?: string }> {
  const { logins, customError } = await quotaOfAllLogins({ fresh: options.fresh, projectRoot: options.projectRoot });
  const now = options.now ?? new Date();
  const rows = logins.map(({ login, harness, quota, signIn }): QuotaListRow => ({
    ...quota,
    displayName: harness.displayName,
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
  return { rows, ...(customError ? { customError } : {}) };
}
