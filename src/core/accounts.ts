import fs from "node:fs/promises";
import path from "node:path";
import { getHarness, HARNESSES } from "../harnesses/registry.js";
import type { Harness } from "../harnesses/types.js";
import {
  accountsFileSchema,
  DEFAULT_ACCOUNT,
  type Account,
  type AccountEntry,
  type AccountsFile,
} from "./account-model.js";
import { OffrunError } from "./errors.js";
import { offrunHome, userPaths } from "./paths.js";
import { readJsonFile, withFileLock, writeJsonAtomic } from "./store.js";

/**
 * The logins of each harness: the Default one (the CLI's own home) and those added in
 * `~/.offrun/accounts.json`, each with a home of its own. The file holds labels, homes and extra
 * environment, never a secret: signing in is the CLI's own business, inside that home.
 */

const FILE_MODE = 0o600;
const HOME_MODE = 0o700;
const LABEL = /^[a-z0-9_][a-z0-9_-]{0,31}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
// Offrun keeps no secret, so names that carry one are refused: the CLI's own login holds them.
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL/i;

const FIX =
  "Fix that field, or move the file aside and add the logins again with `offrun accounts add <harness> <label>`.";

/** Where Offrun creates the homes of the logins it adds. */
export function accountsRoot(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(offrunHome(env), "accounts");
}

async function readAccountsFile(env: NodeJS.ProcessEnv): Promise<AccountsFile> {
  const file = userPaths(offrunHome(env)).accounts;
  const data = await readJsonFile(file, accountsFileSchema, FIX);
  if (!data) return { version: 1, accounts: [] };
  // Someone (a copy, an editor) may have left it readable by others: it names every login's home.
  const stat = await fs.stat(file);
  if ((stat.mode & 0o077) !== 0) await fs.chmod(file, FILE_MODE);
  return data;
}

/** Reads, changes and writes accounts.json under a lock, so two `accounts add` never lose one. */
async function updateAccountsFile<T>(
  env: NodeJS.ProcessEnv,
  change: (file: AccountsFile) => Promise<{ file: AccountsFile; result: T }>,
): Promise<T> {
  const file = userPaths(offrunHome(env)).accounts;
  return withFileLock(file, async () => {
    const changed = await change(await readAccountsFile(env));
    await writeJsonAtomic(file, changed.file, FILE_MODE);
    return changed.result;
  });
}

function toAccount({ harness, label, home, adopted, env }: AccountEntry): Account {
  return { harness, label, home, isDefault: false, adopted, env };
}

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

/** Every login, per harness in registry order: the Default one first, then the added ones. */
export async function listAccounts(
  harness?: string | Harness,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Account[]> {
  // A Harness object also covers custom ACP agents, which getHarness (built-ins only) does not know.
  const harnesses = harness === undefined ? HARNESSES : [typeof harness === "string" ? getHarness(harness) : harness];
  const { accounts } = await readAccountsFile(env);
  return harnesses.flatMap((harness) => [
    defaultAccount(harness, env),
    ...accounts.filter((entry) => entry.harness === harness.id).map(toAccount),
  ]);
}

export async function findAccount(
  harnessOrId: string | Harness,
  label: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Account> {
  const harness = typeof harnessOrId === "string" ? getHarness(harnessOrId) : harnessOrId;
  const accounts = await listAccounts(harness, env);
  const found = accounts.find((account) => account.label === label);
  if (found) return found;
  throw noSuchLogin(harness, label, accounts);
}

function noSuchLogin(harness: Harness, label: string, accounts: { label: string }[]): OffrunError {
  const labels = [DEFAULT_ACCOUNT, ...accounts.map((a) => a.label).filter((l) => l !== DEFAULT_ACCOUNT)];
  return new OffrunError(
    "not_found",
    `${harness.displayName} has no login '${label}'. Its logins: ${labels.join(", ")}. ` +
      `Add one with \`offrun accounts add ${harness.id} ${label}\`.`,
  );
}

/** Throws invalid_input unless `label` is a usable login name. */
export function checkLabel(label: string): void {
  if (label === DEFAULT_ACCOUNT) {
    throw new OffrunError(
      "invalid_input",
      `'${DEFAULT_ACCOUNT}' is the CLI's own login, which always exists. Choose another label, such as 'work'.`,
    );
  }
  if (!LABEL.test(label)) {
    throw new OffrunError(
      "invalid_input",
      `'${label}' is not a valid login label: use up to 32 lowercase letters, digits, '-' and '_', not starting with '-'.`,
    );
  }
}

function checkEnv(harness: Harness, env: Record<string, string>): void {
  for (const name of Object.keys(env)) {
    if (!ENV_NAME.test(name)) {
      throw new OffrunError("invalid_input", `'${name}' is not an environment variable name. Use KEY=VALUE.`);
    }
    if (name === harness.homeVariable) {
      throw new OffrunError(
        "invalid_input",
        `${name} is the login's home, which Offrun sets itself. Use --home DIR to adopt an existing folder.`,
      );
    }
    if (SECRET_NAME.test(name)) {
      throw new OffrunError(
        "invalid_input",
        `Offrun does not store secrets, and ${name} looks like one. Sign in with the CLI's own login ` +
          `(\`offrun accounts login ${harness.id} <label>\`), or set ${name} in your shell.`,
      );
    }
  }
}

async function isDirectory(dir: string): Promise<boolean> {
  return fs.stat(dir).then(
    (stat) => stat.isDirectory(),
    () => false,
  );
}

export interface AddAccountRequest {
  harness: string;
  label: string;
  /** Adopt this existing folder as the login's home instead of creating one. */
  home?: string;
  /** Extra environment for the login's processes (a gateway's base URL, say); never a secret. */
  env?: Record<string, string>;
  /** The process environment (OFFRUN_HOME, HOME); defaults to process.env. */
  processEnv?: NodeJS.ProcessEnv;
}

/** Adds a login: a new home of its own under ~/.offrun/accounts, or an existing folder adopted as it is. */
export async function addAccount(request: AddAccountRequest): Promise<Account> {
  const harness = getHarness(request.harness);
  const processEnv = request.processEnv ?? process.env;
  checkLabel(request.label);
  const extraEnv = request.env ?? {};
  checkEnv(harness, extraEnv);
  const adopted = request.home !== undefined;
  const home = path.resolve(request.home ?? path.join(accountsRoot(processEnv), harness.id, request.label));
  if (adopted && !(await isDirectory(home))) {
    throw new OffrunError(
      "not_found",
      `${home} is not a folder. --home adopts an existing ${harness.displayName} home; leave it out to have Offrun create one.`,
    );
  }
  if (adopted && home === path.resolve(harness.defaultHome(processEnv))) {
    throw new OffrunError(
      "invalid_input",
      `${home} is the home of the Default login of ${harness.displayName}: use the login 'default' for it.`,
    );
  }
  return updateAccountsFile(processEnv, async (file) => {
    const same = file.accounts.filter((entry) => entry.harness === harness.id);
    if (same.some((entry) => entry.label === request.label)) {
      throw new OffrunError(
        "conflict",
        `${harness.displayName} already has a login '${request.label}'. Pick another label, or remove it first with \`offrun accounts rm ${harness.id} ${request.label}\`.`,
      );
    }
    const sharing = same.find((entry) => path.resolve(entry.home) === home);
    if (sharing) {
      throw new OffrunError(
        "conflict",
        `${home} is already the home of login '${sharing.label}': two logins cannot share a home.`,
      );
    }
    if (!adopted) {
      // A home left by `accounts rm` without --purge is reused, with its sign-in.
      await fs.mkdir(home, { recursive: true, mode: HOME_MODE });
      await fs.chmod(home, HOME_MODE);
    }
    const entry: AccountEntry = {
      harness: harness.id,
      label: request.label,
      home,
      adopted,
      env: extraEnv,
      createdAt: new Date().toISOString(),
    };
    return { file: { ...file, accounts: [...file.accounts, entry] }, result: toAccount(entry) };
  });
}

export interface RemoveAccountResult {
  account: Account;
  /** True when the home was deleted (--purge on a home Offrun made). */
  deletedHome: boolean;
  /** Why the home is still there, when it is. */
  keptBecause?: "not-purged" | "adopted" | "outside-offrun";
}

/** Forgets a login. Its home is deleted only with `purge`, and only if Offrun made it. */
export async function removeAccount(request: {
  harness: string;
  label: string;
  purge?: boolean;
  processEnv?: NodeJS.ProcessEnv;
}): Promise<RemoveAccountResult> {
  const harness = getHarness(request.harness);
  const processEnv = request.processEnv ?? process.env;
  if (request.label === DEFAULT_ACCOUNT) {
    throw new OffrunError(
      "invalid_input",
      `The Default login of ${harness.displayName} is the CLI's own home (${harness.defaultHome(processEnv)}); Offrun does not remove it. Sign out with the CLI itself.`,
    );
  }
  const account = await updateAccountsFile(processEnv, async (file) => {
    const entry = file.accounts.find((e) => e.harness === harness.id && e.label === request.label);
    if (!entry)
      throw noSuchLogin(
        harness,
        request.label,
        file.accounts.filter((e) => e.harness === harness.id),
      );
    const rest = file.accounts.filter((e) => e !== entry);
    return {
      file: withDefault({ ...file, accounts: rest }, harness.id, request.label, undefined),
      result: toAccount(entry),
    };
  });
  if (!request.purge) return { account, deletedHome: false, keptBecause: "not-purged" };
  if (account.adopted) return { account, deletedHome: false, keptBecause: "adopted" };
  // A hand-edited file could point an Offrun-made login anywhere: delete only inside our own folder.
  const root = path.join(accountsRoot(processEnv), harness.id) + path.sep;
  if (!path.resolve(account.home).startsWith(root)) {
    return { account, deletedHome: false, keptBecause: "outside-offrun" };
  }
  await fs.rm(account.home, { recursive: true, force: true });
  return { account, deletedHome: true };
}

/** The file with the harness's default login moved from `from` to `to` (undefined: none) when it was `from`. */
function withDefault(
  file: AccountsFile,
  harness: string,
  from: string | undefined,
  to: string | undefined,
): AccountsFile {
  const defaults = { ...file.defaults };
  if (from !== undefined && defaults[harness] !== from) return file;
  if (to === undefined) delete defaults[harness];
  else defaults[harness] = to;
  return { ...file, defaults };
}

/**
 * Renames an added login. Its home stays where it is: on macOS Claude Code names its keychain
 * entry after the home's path, so moving the folder would sign the login out.
 */
export async function renameAccount(request: {
  harness: string;
  label: string;
  to: string;
  processEnv?: NodeJS.ProcessEnv;
}): Promise<Account> {
  const harness = getHarness(request.harness);
  if (request.label === DEFAULT_ACCOUNT) {
    throw new OffrunError(
      "invalid_input",
      `The Default login of ${harness.displayName} is the CLI's own home and keeps its name. Rename an added login.`,
    );
  }
  checkLabel(request.to);
  return updateAccountsFile(request.processEnv ?? process.env, async (file) => {
    const same = file.accounts.filter((e) => e.harness === harness.id);
    const entry = same.find((e) => e.label === request.label);
    if (!entry) throw noSuchLogin(harness, request.label, same);
    if (same.some((e) => e.label === request.to)) {
      throw new OffrunError(
        "conflict",
        `${harness.displayName} already has a login '${request.to}'. Choose another name, or remove that login first.`,
      );
    }
    const renamed: AccountEntry = { ...entry, label: request.to };
    const accounts = file.accounts.map((e) => (e === entry ? renamed : e));
    return {
      file: withDefault({ ...file, accounts }, harness.id, request.label, request.to),
      result: toAccount(renamed),
    };
  });
}

/** Sets (or, with undefined, clears) the login Start Agent preselects for a harness. */
export async function setDefaultAccount(request: {
  harness: string;
  label: string | undefined;
  processEnv?: NodeJS.ProcessEnv;
}): Promise<Account | undefined> {
  const harness = getHarness(request.harness);
  const processEnv = request.processEnv ?? process.env;
  const account = request.label === undefined ? undefined : await findAccount(harness, request.label, processEnv);
  await updateAccountsFile(processEnv, async (file) => ({
    file: withDefault(file, harness.id, undefined, account?.label),
    result: undefined,
  }));
  return account;
}

/** The default login of each harness that has one: harness id -> label. */
export async function defaultAccounts(env: NodeJS.ProcessEnv = process.env): Promise<Record<string, string>> {
  return { ...(await readAccountsFile(env)).defaults };
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
      `The home of login '${account.label}' (${account.home}) is gone. Restore it, or remove the login with \`offrun accounts rm ${account.harness} ${account.label}\`.`,
    );
  }
  await fs.mkdir(account.home, { recursive: true, mode: HOME_MODE });
}
