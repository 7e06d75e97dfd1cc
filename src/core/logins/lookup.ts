import { findHarness, listHarnesses } from "../../harnesses/registry.js";
import type { Harness } from "../../harnesses/types.js";
import { DEFAULT_LOGIN, type Login } from "../foundation/login-model.js";
import { readLoginsFile, readLoginsStrictly, toLogin } from "./logins-file.js";
import { isOffrunError, OffrunError } from "../foundation/errors.js";

/** Finding logins: the Default one of each harness (the CLI's own home) and the added ones. */

export function defaultLogin(harness: Harness, env: NodeJS.ProcessEnv = process.env): Login {
  // "adopted": the Default home is the user's own, so Offrun never deletes it.
  return {
    harness: harness.id,
    label: DEFAULT_LOGIN,
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
export async function listLogins(
  harness?: string | Harness | readonly Harness[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<Login[]> {
  const harnesses =
    harness === undefined
      ? await listHarnesses({ env, tolerant: true })
      : typeof harness === "string"
        ? [await findHarness(harness, { env })]
        : "id" in harness
          ? [harness]
          : harness;
  const { accounts: logins, reserves = {} } = await readLoginsFile(env);
  const withReserve = (login: Login): Login => {
    const reserve = reserves[`${login.harness}/${login.label}`];
    return reserve ? { ...login, reservePercent: reserve } : login;
  };
  return harnesses.flatMap((harness) =>
    [defaultLogin(harness, env), ...logins.filter((entry) => entry.harness === harness.id).map(toLogin)].map(
      withReserve,
    ),
  );
}

export async function findLogin(
  harnessOrId: string | Harness,
  label: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Login> {
  const harness = typeof harnessOrId === "string" ? await findHarness(harnessOrId, { env }) : harnessOrId;
  const logins = await listLogins(harness, env);
  const found = logins.find((login) => login.label === label);
  if (found) return found;
  // The logins file does not read: the login may be in it, and no `logins add` works until it is fixed.
  const unreadable = await readLoginsStrictly(env).then(
    () => undefined,
    (error: unknown) => (isOffrunError(error, "invalid_file") ? error : undefined),
  );
  if (unreadable) {
    throw new OffrunError(
      "invalid_file",
      `${harness.displayName} has no login '${label}' that Offrun can read: ${unreadable.message}`,
    );
  }
  // A login of that name that is another CLI's: the user named the login and meant that CLI.
  const { accounts } = await readLoginsFile(env).catch(() => ({
    accounts: [] as { harness: string; label: string }[],
  }));
  const elsewhere = accounts.filter((entry) => entry.label === label && entry.harness !== harness.id);
  if (elsewhere.length > 0) {
    const owners = await Promise.all(
      elsewhere.map(async (entry) => ({
        id: entry.harness,
        name: (await findHarness(entry.harness, { env }).catch(() => undefined))?.displayName ?? entry.harness,
      })),
    );
    const first = owners[0]!;
    throw new OffrunError(
      "not_found",
      `'${label}' is a login of ${owners.map((o) => o.name).join(" and ")}, not of ${harness.displayName}. ` +
        `Name the CLI with it: \`--harness ${first.id} --login ${label}\`.`,
    );
  }
  throw noSuchLogin(harness, label, logins);
}

export function noSuchLogin(harness: Harness, label: string, logins: { label: string }[]): OffrunError {
  const labels = [DEFAULT_LOGIN, ...logins.map((a) => a.label).filter((l) => l !== DEFAULT_LOGIN)];
  return new OffrunError(
    "not_found",
    `${harness.displayName} has no login '${label}'. Its logins: ${labels.join(", ")}. ` +
      `Add one with \`offrun logins add ${harness.id} ${label}\`.`,
  );
}
