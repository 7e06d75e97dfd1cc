import fs from "node:fs/promises";
import path from "node:path";
import type { Login } from "../../core/foundation/login-model.js";
import { defaultLogins, listLogins, loginCommand } from "../../core/logins/store.js";
import { locateBinary } from "../../core/foundation/binaries.js";
import { cachedLoginQuota } from "../../core/quota/pipeline.js";
import { cachedSignIns, checkSignIn, signInKey, type SignInEntry } from "../../core/logins/sign-in.js";
import { findHarness, listHarnesses } from "../../harnesses/registry.js";
import type { Harness } from "../../harnesses/types.js";
import { viewLoginQuota, type LoginQuotaView } from "../../core/logins/login-quota.js";
import { shellQuote } from "../../core/foundation/shell-quote.js";

/**
 * Agent Logins: the logins of each CLI with their quota and their cached sign-in state, shown at
 * once; the CLI's own status check of a login runs only when its detail is shown.
 */

export interface LoginRow {
  // `account` names the login: Raycast's cache of this view (useCachedPromise) holds rows of earlier versions.
  account: Login;
  quota: LoginQuotaView;
  /** What Offrun last knew of the sign-in (a missing home is signed out at once). */
  signIn: SignInEntry;
}

export interface HarnessLogins {
  id: string;
  name: string;
  binary: string | undefined;
  installHint: string;
  logins: LoginRow[];
  /** The login set as default (what Start Agent preselects), if any. */
  defaultLogin: string | undefined;
}

export async function loadLoginsView(env: NodeJS.ProcessEnv, now = Date.now()): Promise<HarnessLogins[]> {
  const defaults = await defaultLogins(env);
  return Promise.all(
    (await listHarnesses({ env, tolerant: true })).map(async (harness) => {
      const [binary, listed] = await Promise.all([
        locateBinary(harness.id, harness.binaryName, env),
        listLogins(harness, env),
      ]);
      const signIns = await cachedSignIns(listed);
      const logins = await Promise.all(
        listed.map(async (login): Promise<LoginRow> => {
          const signIn = signIns.get(signInKey(login))!;
          const quota = await cachedLoginQuota(login, new Date(now));
          const facts = { signIn: signIn.state, coverage: harness.quotaCoverage };
          return { account: login, quota: viewLoginQuota(quota, now, facts), signIn };
        }),
      );
      return {
        id: harness.id,
        name: harness.displayName,
        binary,
        installHint: harness.installHint,
        logins,
        defaultLogin: defaults[harness.id],
      };
    }),
  );
}

/**
 * Asks the login's CLI who is signed in (status command or non-secret files, never credentials,
 * time-boxed) and keeps the answer in the sign-in cache, so the next paint shows it at once.
 */
export async function refreshSignIn(login: Login, env: NodeJS.ProcessEnv): Promise<SignInEntry> {
  const harness = await findHarness(login.harness, { env });
  const binary = await locateBinary(harness.id, harness.binaryName, env);
  return checkSignIn(login, harness, binary, env);
}

/**
 * A `.command` file that Terminal runs: the CLI's own sign-in with the login's home set. Offrun
 * never sees what the user types there.
 */
export function loginScript(login: Login, harness: Harness, binary: string): string {
  const command = loginCommand(login, harness, binary);
  const exports = Object.entries(command.env).map(([name, value]) => `export ${name}=${shellQuote(value)}`);
  return [
    "#!/bin/sh",
    `# Offrun: sign in to ${harness.displayName}, login '${login.label}' (home ${login.home})`,
    ...exports,
    `exec ${[command.file, ...command.args].map(shellQuote).join(" ")}`,
    "",
  ].join("\n");
}

/** Writes the sign-in script into `dir` (Raycast's support folder) and returns its path. */
export async function writeLoginScript(dir: string, login: Login, env: NodeJS.ProcessEnv): Promise<string> {
  const harness = await findHarness(login.harness, { env });
  const binary = await locateBinary(harness.id, harness.binaryName, env);
  if (!binary) {
    const { OffrunError } = await import("../../core/foundation/errors.js");
    throw new OffrunError("not_installed", `${harness.displayName} is not installed. ${harness.installHint}`);
  }
  await fs.mkdir(dir, { recursive: true });
  const file = path.join(dir, `login-${login.harness}-${login.label}.command`);
  await fs.writeFile(file, loginScript(login, harness, binary), { mode: 0o700 });
  return file;
}
