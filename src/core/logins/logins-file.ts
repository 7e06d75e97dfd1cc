import fs from "node:fs/promises";
import { loginsFileSchema, type Login, type LoginEntry, type LoginsFile } from "../foundation/login-model.js";
import { isOffrunError } from "../foundation/errors.js";
import { offrunHome, userPaths } from "../foundation/paths.js";
import { reportStateProblem } from "../foundation/state-problems.js";
import { readJsonFile, withFileLock, writeJsonAtomic } from "../foundation/store.js";

/** `~/.offrun/accounts.json`: read, changed under a lock, written atomically and user-only. */

const FILE_MODE = 0o600;

const FIX =
  "Fix it where the error above says, or move the file aside and add the logins again with `offrun logins add <harness> <label>` (each takes up the home it had, sign-in and sessions kept).";

/** Where Offrun creates the homes of the logins it adds. */
export function loginsRoot(env: NodeJS.ProcessEnv = process.env): string {
  return userPaths(offrunHome(env)).loginHomes;
}

/**
 * The logins Offrun added. A corrupt file is reported (state-problems.ts) and read as none: each
 * CLI's default login goes on working, and an agent on an added login says that login is unknown.
 * It is never written over: a change refuses until the file is fixed (updateLoginsFile).
 */
export async function readLoginsFile(env: NodeJS.ProcessEnv): Promise<LoginsFile> {
  try {
    return await readLoginsStrictly(env);
  } catch (error) {
    if (!isOffrunError(error, "invalid_file")) throw error;
    const file = userPaths(offrunHome(env)).accounts;
    reportStateProblem({
      file,
      message: `${error.message.split("\n").join(" ")} Until then Offrun uses only each CLI's default login.`,
    });
    return { version: 1, accounts: [] };
  }
}

export async function readLoginsStrictly(env: NodeJS.ProcessEnv): Promise<LoginsFile> {
  const file = userPaths(offrunHome(env)).accounts;
  const data = await readJsonFile(file, loginsFileSchema, FIX);
  if (!data) return { version: 1, accounts: [] };
  // Someone (a copy, an editor) may have left it readable by others: it names every login's home.
  const stat = await fs.stat(file);
  if ((stat.mode & 0o077) !== 0) await fs.chmod(file, FILE_MODE);
  return data;
}

/** Reads, changes and writes accounts.json under a lock, so two `logins add` never lose one. */
export async function updateLoginsFile<T>(
  env: NodeJS.ProcessEnv,
  change: (file: LoginsFile) => Promise<{ file: LoginsFile; result: T }>,
): Promise<T> {
  const file = userPaths(offrunHome(env)).accounts;
  return withFileLock(file, async () => {
    // Strictly: a change made on top of a corrupt file read as empty would drop every login in it.
    const changed = await change(await readLoginsStrictly(env));
    await writeJsonAtomic(file, changed.file, { mode: FILE_MODE });
    return changed.result;
  });
}

export function toLogin({ harness, label, home, adopted, env }: LoginEntry): Login {
  return { harness, label, home, isDefault: false, adopted, env };
}

/** The file with the harness's default login moved from `from` to `to` (undefined: none) when it was `from`. */
export function withDefault(
  file: LoginsFile,
  harness: string,
  from: string | undefined,
  to: string | undefined,
): LoginsFile {
  const defaults = { ...file.defaults };
  if (from !== undefined && defaults[harness] !== from) return file;
  if (to === undefined) delete defaults[harness];
  else defaults[harness] = to;
  return { ...file, defaults };
}

/** The file with a login's reserve moved from `from` to `to` (undefined: dropped), when it has one. */
export function withReserveMoved(file: LoginsFile, harness: string, from: string, to: string | undefined): LoginsFile {
  const reserve = file.reserves?.[`${harness}/${from}`];
  if (reserve === undefined) return file;
  const reserves = { ...file.reserves };
  delete reserves[`${harness}/${from}`];
  if (to !== undefined) reserves[`${harness}/${to}`] = reserve;
  return { ...file, reserves };
}

/** The default login of each harness that has one: harness id -> label. */
export async function defaultLogins(env: NodeJS.ProcessEnv = process.env): Promise<Record<string, string>> {
  return { ...(await readLoginsFile(env)).defaults };
}
