import fs from "node:fs/promises";
import type { Harness } from "../../harnesses/types.js";
import type { Login } from "../foundation/login-model.js";
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
export function loginProcessEnv(login: Login, harness: Harness): Record<string, string> {
  if (login.isDefault) return { ...login.env };
  return { [harness.homeVariable]: login.home, ...login.env };
}

/** The CLI's own interactive sign-in for a login, run with the login's home. */
export function loginCommand(
  login: Login,
  harness: Harness,
  binary: string,
): { file: string; args: string[]; env: Record<string, string> } {
  return { file: binary, args: [...harness.loginArgs], env: loginProcessEnv(login, harness) };
}

/**
 * Makes sure an added login's home exists before its CLI runs (Codex refuses a missing
 * CODEX_HOME). An adopted home that vanished is reported, not recreated.
 */
export async function ensureLoginHome(login: Login): Promise<void> {
  if (login.isDefault || (await isDirectory(login.home))) return;
  if (login.adopted) {
    throw new OffrunError(
      "not_found",
      `The home of login '${login.label}' (${login.home}) is gone. Restore it, or remove the login with \`offrun logins rm ${login.harness} ${login.label}\`.`,
    );
  }
  await fs.mkdir(login.home, { recursive: true, mode: HOME_MODE });
}
