import { HARNESSES } from "../../harnesses/registry.js";
import type { Harness } from "../../harnesses/types.js";
import type { Account } from "../account-model.js";
import { accountProcessEnv, listAccounts } from "../accounts.js";
import { locateBinary } from "../binaries.js";
import { readLedgerEntry, type AccountQuota } from "./ledger.js";
import { cachedAccountQuota, readAccountQuota } from "./pipeline.js";

export interface LoginQuota {
  account: Account;
  harness: Harness;
  quota: AccountQuota;
}

/**
 * Every login of every harness with its quota. `fresh` asks the sources now; otherwise the
 * cached reading answers at once, and only a login never read before is asked.
 */
export async function quotaOfAllLogins(
  options: { fresh?: boolean; env?: NodeJS.ProcessEnv; now?: Date } = {},
): Promise<LoginQuota[]> {
  const env = options.env ?? process.env;
  const results: LoginQuota[] = [];
  for (const harness of HARNESSES) {
    const accounts = await listAccounts(harness.id, env);
    const binary = await locateBinary(harness.id, harness.binaryName, env);
    const quotas = await Promise.all(
      accounts.map(async (account) => {
        const known = (await readLedgerEntry(account)).last !== undefined;
        if (known && !options.fresh) return cachedAccountQuota(account, options.now);
        return readAccountQuota({
          account,
          harness,
          binary,
          env: { ...env, ...accountProcessEnv(account, harness) },
          now: options.now,
        });
      }),
    );
    accounts.forEach((account, index) => results.push({ account, harness, quota: quotas[index]! }));
  }
  return results;
}
