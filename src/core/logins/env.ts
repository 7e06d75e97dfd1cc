import fs from "node:fs/promises";
import type { Harness } from "../../harnesses/types.js";
import type { Account } from "../foundation/account-model.js";
import { OffrunError } from "../foundation/errors.js";

/** What a login's processes get: its home and extra env, its CLI's sign-in, and a home that exists. */

export const HOME_MODE = 0o700;

export async function isDirectory(dir: string): Promise<boolean> {
  return fs.stat(dir).then(
    (stat) => stat.isDirectory(),
    () => false,
  );
}

/** The variables a login's processes get on top of the environment: its home (added logins) and extra env. */
export function accountProcessEnv(account: Account, harness: Harness): Record<string, string> {
  if (account.isDefault) return { ...account.env };
  return { [harness.homeVariable]: account.home, ...account.env };
}

/** The CLI's own interactive sign-in for a login, run with the login's home. */
export function loginCommand(
  account: Account,
  harness: Harness,
  binary: string,
): { file: string; args: string[]; env: Record<string, string> } {
  return { file: binary, args: [...harness.loginArgs], env: accountProcessEnv(account, harness) };
}

/**
 * Makes sure an added login's home exists before its CLI runs (Codex refuses a missing
 * CODEX_HOME). An adopted home that vanished is reported, not recreated.
 */
export async function ensureAccountHome(account: Account): Promise<void> {
  if (account.isDefault || (await isDirectory(account.home))) return;
  if (account.adopted) {
    throw new OffrunError(
      "not_found",
      `The home of login '${account.label}' (${account.home}) is gone. Restore it, or remove the login with \`offrun logins rm ${account.harness} ${account.label}\`.`,
    );
  }
  await fs.mkdir(account.home, { recursive: true, mode: HOME_MODE });
}
