import fs from "node:fs/promises";
import path from "node:path";
import type { Account, AccountIdentity } from "../account-model.js";
import { accountProcessEnv, defaultAccounts, listAccounts, loginCommand } from "../accounts.js";
import { locateBinary } from "../binaries.js";
import { cachedAccountQuota } from "../quota/pipeline.js";
import { HARNESSES, getHarness } from "../../harnesses/registry.js";
import { viewLoginQuota, type LoginQuotaView } from "./login-quota.js";

/** Agent Accounts: the logins of each CLI with their quota; who is signed in is asked per login. */

export interface LoginRow {
  account: Account;
  quota: LoginQuotaView;
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

export async function loadAccountsView(env: NodeJS.ProcessEnv, now = Date.now()): Promise<HarnessLogins[]> {
  const defaults = await defaultAccounts(env);
  return Promise.all(
    HARNESSES.map(async (harness) => {
      const [binary, accounts] = await Promise.all([
        locateBinary(harness.id, harness.binaryName, env),
        listAccounts(harness, env),
      ]);
      const logins = await Promise.all(
        accounts.map(async (account) => ({
          account,
          quota: viewLoginQuota(await cachedAccountQuota(account, new Date(now)), now),
        })),
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

/** Who is signed in to one login: the CLI's status command or non-secret files (never credentials). */
export async function loginIdentity(account: Account, env: NodeJS.ProcessEnv): Promise<AccountIdentity> {
  const harness = getHarness(account.harness);
  const binary = await locateBinary(harness.id, harness.binaryName, env);
  return harness.identity(binary, { ...env, ...accountProcessEnv(account, harness) }, account.home);
}

function shellQuote(word: string): string {
  return /^[A-Za-z0-9._/:=@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

/**
 * A `.command` file that Terminal runs: the CLI's own sign-in with the login's home set. Offrun
 * never sees what the user types there.
 */
export function loginScript(account: Account, binary: string): string {
  const harness = getHarness(account.harness);
  const command = loginCommand(account, harness, binary);
  const exports = Object.entries(command.env).map(([name, value]) => `export ${name}=${shellQuote(value)}`);
  return [
    "#!/bin/sh",
    `# Offrun: sign in to ${harness.displayName}, login '${account.label}' (home ${account.home})`,
    ...exports,
    `exec ${[command.file, ...command.args].map(shellQuote).join(" ")}`,
    "",
  ].join("\n");
}

/** Writes the sign-in script into `dir` (Raycast's support folder) and returns its path. */
export async function writeLoginScript(dir: string, account: Account, env: NodeJS.ProcessEnv): Promise<string> {
  const harness = getHarness(account.harness);
  const binary = await locateBinary(harness.id, harness.binaryName, env);
  if (!binary) {
    const { OffrunError } = await import("../errors.js");
    throw new OffrunError("not_installed", `${harness.displayName} is not installed. ${harness.installHint}`);
  }
  await fs.mkdir(dir, { recursive: true });
  const file = path.join(dir, `login-${account.harness}-${account.label}.command`);
  await fs.writeFile(file, loginScript(account, binary), { mode: 0o700 });
  return file;
}
