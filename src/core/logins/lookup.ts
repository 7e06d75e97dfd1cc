import { findHarness, listHarnesses } from "../../harnesses/registry.js";
import type { Harness } from "../../harnesses/types.js";
import { DEFAULT_ACCOUNT, type Account } from "../foundation/account-model.js";
import { readAccountsFile, toAccount } from "./accounts-file.js";
import { OffrunError } from "../foundation/errors.js";

/** Finding logins: the Default one of each harness (the CLI's own home) and the added ones. */

export function defaultAccount(harness: Harness, env: NodeJS.ProcessEnv = process.env): Account {
  // "adopted": the Default home is the user's own, so Offrun never deletes it.
  return {
    harness: harness.id,
    label: DEFAULT_ACCOUNT,
    home: harness.defaultHome(env),
    isDefault: true,
    adopted: true,
    env: {},
  };
}

/**
 * Every login, per harness in registry order: the Default one first, then the added ones. Of one
 * harness, of a list a caller already has from the registry (so it is read once), or of all.
 */
export async function listAccounts(
  harness?: string | Harness | readonly Harness[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<Account[]> {
  const harnesses =
    harness === undefined
      ? await listHarnesses({ env, tolerant: true })
      : typeof harness === "string"
        ? [await findHarness(harness, { env })]
        : "id" in harness
          ? [harness]
          : harness;
  const { accounts, reserves = {} } = await readAccountsFile(env);
  const withReserve = (account: Account): Account => {
    const reserve = reserves[`${account.harness}/${account.label}`];
    return reserve ? { ...account, reservePercent: reserve } : account;
  };
  return harnesses.flatMap((harness) =>
    [defaultAccount(harness, env), ...accounts.filter((entry) => entry.harness === harness.id).map(toAccount)].map(
      withReserve,
    ),
  );
}

export async function findAccount(
  harnessOrId: string | Harness,
  label: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Account> {
  const harness = typeof harnessOrId === "string" ? await findHarness(harnessOrId, { env }) : harnessOrId;
  const accounts = await listAccounts(harness, env);
  const found = accounts.find((account) => account.label === label);
  if (found) return found;
  throw noSuchLogin(harness, label, accounts);
}

export function noSuchLogin(harness: Harness, label: string, accounts: { label: string }[]): OffrunError {
  const labels = [DEFAULT_ACCOUNT, ...accounts.map((a) => a.label).filter((l) => l !== DEFAULT_ACCOUNT)];
  return new OffrunError(
    "not_found",
    `${harness.displayName} has no login '${label}'. Its logins: ${labels.join(", ")}. ` +
      `Add one with \`offrun logins add ${harness.id} ${label}\`.`,
  );
}
