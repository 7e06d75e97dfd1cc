import { BUILTIN_HARNESSES, listHarnesses } from "../../harnesses/registry.js";
import type { Harness } from "../../harnesses/types.js";
import type { Login } from "../foundation/login-model.js";
import { loginProcessEnv, listLogins } from "./store.js";
import { locateBinary } from "../foundation/binaries.js";
import { describeError } from "../foundation/errors.js";
import { cachedSignIns, signInKey, type SignInEntry } from "./sign-in.js";
import { readLedgerEntry, type LoginReading } from "../quota/ledger.js";
import { cachedLoginQuota, readLoginQuota } from "../quota/pipeline.js";

export interface LoginQuota {
  login: Login;
  harness: Harness;
  quota: LoginReading;
  /** The cached sign-in state: a signed-out login is shown as such, not as "quota unknown". */
  signIn: SignInEntry;
  /** Whether its CLI's binary is found: a login of a CLI that is not installed cannot run. */
  installed: boolean;
}

export interface AllLoginQuotas {
  logins: LoginQuota[];
  /** Why the custom ACP agents could not be listed (a bad harnesses file), when so. */
  customError?: string;
  /** Every CLI whose binary is not found, whether or not its logins are listed. */
  notInstalled: Harness[];
}

/**
 * Every login of every installed CLI with its quota: built-ins and custom ACP agents (of the user,
 * and of `projectRoot`'s config). A CLI that is not installed is left out unless it has an added
 * login (then its logins show, so a missing binary is no reason to lose sight of their limits).
 * `fresh` asks the sources now; otherwise the cached reading answers at once, and only a login
 * never read before is asked.
 */
export async function quotaOfAllLogins(
  options: { fresh?: boolean; env?: NodeJS.ProcessEnv; now?: Date; projectRoot?: string } = {},
): Promise<AllLoginQuotas> {
  const env = options.env ?? process.env;
  let harnesses: readonly Harness[] = BUILTIN_HARNESSES;
  let customError: string | undefined;
  try {
    harnesses = await listHarnesses({ project: options.projectRoot, env });
  } catch (error) {
    customError = describeError(error); // the built-ins still answer
  }
  const logins: LoginQuota[] = [];
  const notInstalled: Harness[] = [];
  for (const harness of harnesses) {
    const [listed, binary] = await Promise.all([
      listLogins(harness, env),
      locateBinary(harness.id, harness.binaryName, env),
    ]);
    if (!binary) notInstalled.push(harness);
    if (!binary && listed.every((login) => login.isDefault)) continue;
    const [quotas, signIns] = await Promise.all([
      Promise.all(listed.map((login) => quotaOf(login, harness, binary, env, options))),
      cachedSignIns(listed),
    ]);
    listed.forEach((login, index) =>
      logins.push({
        login,
        harness,
        quota: quotas[index]!,
        signIn: signIns.get(signInKey(login))!,
        installed: binary !== undefined,
      }),
    );
  }
  return { logins, notInstalled, ...(customError ? { customError } : {}) };
}

async function quotaOf(
  login: Login,
  harness: Harness,
  binary: string | undefined,
  env: NodeJS.ProcessEnv,
  options: { fresh?: boolean; now?: Date },
): Promise<LoginReading> {
  const known = (await readLedgerEntry(login)).last !== undefined;
  if (known && !options.fresh) return cachedLoginQuota(login, options.now);
  return readLoginQuota({
    login,
    harness,
    binary,
    env: { ...env, ...loginProcessEnv(login, harness) },
    now: options.now,
  });
}
