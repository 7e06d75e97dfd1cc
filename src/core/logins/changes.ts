import fs from "node:fs/promises";
import path from "node:path";
import { findHarness } from "../../harnesses/registry.js";
import type { Harness } from "../../harnesses/types.js";
import { DEFAULT_LOGIN, type Login, type LoginEntry } from "../foundation/login-model.js";
import { HOME_MODE, isDirectory } from "./env.js";
import { findLogin, noSuchLogin } from "./lookup.js";
import { loginsRoot, toLogin, updateLoginsFile, withDefault, withReserveMoved } from "./logins-file.js";
import { describeError, OffrunError } from "../foundation/errors.js";
import { injectFault } from "../foundation/fault-points.js";
import { beginLoginChange, refuseForRoom, type Pending } from "./pending.js";
import { homeSettled } from "./home-use.js";
import { agentsOnLogin } from "./agents-on-login.js";

/** Changing the logins: add, remove, rename, and the one Start Agent preselects. */

const LABEL = /^[a-z0-9_][a-z0-9_-]{0,31}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
// Offrun keeps no secret, so names that carry one are refused: the CLI's own login holds them.
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL/i;

/** Throws invalid_input unless `label` is a usable login name. */
export function checkLabel(label: string): void {
  if (label === DEFAULT_LOGIN) {
    throw new OffrunError(
      "invalid_input",
      `'${DEFAULT_LOGIN}' is the CLI's own login, which always exists. Choose another label, such as 'work'.`,
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
          `(\`offrun logins login ${harness.id} <label>\`), or set ${name} in your shell.`,
      );
    }
  }
}

export interface AddLoginRequest {
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
export async function addLogin(request: AddLoginRequest): Promise<Login> {
  const harness = await findHarness(request.harness, { env: request.processEnv ?? process.env });
  const processEnv = request.processEnv ?? process.env;
  checkLabel(request.label);
  const extraEnv = request.env ?? {};
  checkEnv(harness, extraEnv);
  const adopted = request.home !== undefined;
  const home = path.resolve(request.home ?? path.join(loginsRoot(processEnv), harness.id, request.label));
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
  let made: Pending | undefined;
  const added = updateLoginsFile(processEnv, async (file) => {
    const same = file.accounts.filter((entry) => entry.harness === harness.id);
    if (same.some((entry) => entry.label === request.label)) {
      throw new OffrunError(
        "conflict",
        `${harness.displayName} already has a login '${request.label}'. Pick another label, or remove it first with \`offrun logins rm ${harness.id} ${request.label}\`.`,
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
      // A home this add makes is written down first: cut short, the next companion removes it.
      if (!(await isDirectory(home)))
        made = await beginLoginChange({ op: "add", harness: harness.id, label: request.label, home }, processEnv);
      // A home left by `logins rm` without --purge is reused, with its sign-in.
      await fs.mkdir(home, { recursive: true, mode: HOME_MODE });
      await fs.chmod(home, HOME_MODE);
      injectFault("login", `add ${harness.id}/${request.label}`);
    }
    const entry: LoginEntry = {
      harness: harness.id,
      label: request.label,
      home,
      adopted,
      env: extraEnv,
      createdAt: new Date().toISOString(),
    };
    return { file: { ...file, accounts: [...file.accounts, entry] }, result: toLogin(entry) };
  });
  try {
    const login = await added;
    await made?.done();
    return login;
  } catch (error) {
    // Undone: the home this add made goes (rmdir: only while it is still empty).
    if (made) {
      await fs.rmdir(home).catch(() => undefined);
      await made.done();
    }
    return refuseForRoom(processEnv, `Could not add login '${request.label}'`)(error);
  }
}

export interface RemoveLoginResult {
  // `account` names the login: this is the `login.remove` reply, whose key peers of earlier versions read.
  account: Login;
  /** True when the home was deleted (--purge on a home Offrun made). */
  deletedHome: boolean;
  /** Why the home is still there, when it is. */
  keptBecause?: "not-purged" | "adopted" | "outside-offrun" | "in-use";
}

/** Forgets a login. Its home is deleted only with `purge`, and only if Offrun made it. */
export async function removeLogin(request: {
  harness: string;
  label: string;
  purge?: boolean;
  /** Remove it although agents use it: they wait for a login until switched (`offrun switch`). */
  force?: boolean;
  processEnv?: NodeJS.ProcessEnv;
}): Promise<RemoveLoginResult> {
  const harness = await findHarness(request.harness, { env: request.processEnv ?? process.env });
  const processEnv = request.processEnv ?? process.env;
  if (request.label === DEFAULT_LOGIN) {
    throw new OffrunError(
      "invalid_input",
      `The Default login of ${harness.displayName} is the CLI's own home (${harness.defaultHome(processEnv)}); Offrun does not remove it. Sign out with the CLI itself.`,
    );
  }
  // Agents on it would be stranded: every message to them would fail. Named, with what moves them.
  const users = (await agentsOnLogin(harness.id, request.label)).filter((record) => record.status !== "done");
  if (users.length > 0 && !request.force) {
    const names = users.map((record) => record.name);
    throw new OffrunError(
      "conflict",
      `Login '${request.label}' of ${harness.displayName} is used by ${names.length === 1 ? "agent" : "agents"} ${names.join(", ")}. ` +
        `Move ${names.length === 1 ? "it" : "them"} to another login first (\`offrun switch ${names[0]} --login <label>\`), ` +
        `or remove it anyway with --force: ${names.length === 1 ? "it then waits" : "they then wait"} for a login until you switch ${names.length === 1 ? "it" : "them"}, and its home with their sessions is kept, even with --purge.`,
    );
  }
  // A home to delete is written down before accounts.json drops the login: cut short between the
  // two, the next companion deletes it, rather than leave a home no login names.
  const root = path.join(loginsRoot(processEnv), harness.id) + path.sep;
  let purging: Pending | undefined;
  const login = await updateLoginsFile(processEnv, async (file) => {
    const entry = file.accounts.find((e) => e.harness === harness.id && e.label === request.label);
    if (!entry)
      throw noSuchLogin(
        harness,
        request.label,
        file.accounts.filter((e) => e.harness === harness.id),
      );
    if (request.purge && !entry.adopted && path.resolve(entry.home).startsWith(root)) {
      purging = await beginLoginChange(
        { op: "remove", harness: harness.id, label: entry.label, home: entry.home },
        processEnv,
      );
    }
    const rest = file.accounts.filter((e) => e !== entry);
    return {
      file: withReserveMoved(
        withDefault({ ...file, accounts: rest }, harness.id, request.label, undefined),
        harness.id,
        request.label,
        undefined,
      ),
      result: toLogin(entry),
    };
  }).catch(async (error: unknown) => {
    await purging?.done();
    return refuseForRoom(processEnv, `Could not remove login '${request.label}'`)(error);
  });
  if (!request.purge) return { account: login, deletedHome: false, keptBecause: "not-purged" };
  // Their sessions are in it: `offrun switch` copies them to the next login from there.
  if (users.length > 0) return { account: login, deletedHome: false, keptBecause: "in-use" };
  if (login.adopted) return { account: login, deletedHome: false, keptBecause: "adopted" };
  // A hand-edited file could point an Offrun-made login anywhere: delete only inside our own folder.
  if (!path.resolve(login.home).startsWith(root)) {
    return { account: login, deletedHome: false, keptBecause: "outside-offrun" };
  }
  try {
    injectFault("login", `remove ${harness.id}/${request.label}`);
    // No longer listed, so no new check starts in it; one under way ends first.
    await homeSettled(login.home);
    await fs.rm(login.home, { recursive: true, force: true });
  } catch (error) {
    await purging?.done();
    throw new OffrunError(
      "process_failed",
      `Removed login '${request.label}' of ${harness.displayName}, but its home ${login.home} could not be deleted: ${describeError(error)}. Delete it with \`rm -rf ${login.home}\`.`,
      { cause: error },
    );
  }
  await purging?.done();
  return { account: login, deletedHome: true };
}

/**
 * Renames an added login. Its home stays where it is: on macOS Claude Code names its keychain
 * entry after the home's path, so moving the folder would sign the login out.
 */
export async function renameLoginEntry(request: {
  harness: string;
  label: string;
  to: string;
  processEnv?: NodeJS.ProcessEnv;
}): Promise<Login> {
  const harness = await findHarness(request.harness, { env: request.processEnv ?? process.env });
  if (request.label === DEFAULT_LOGIN) {
    throw new OffrunError(
      "invalid_input",
      `The Default login of ${harness.displayName} is the CLI's own home and keeps its name. Rename an added login.`,
    );
  }
  checkLabel(request.to);
  return updateLoginsFile(request.processEnv ?? process.env, async (file) => {
    const same = file.accounts.filter((e) => e.harness === harness.id);
    const entry = same.find((e) => e.label === request.label);
    if (!entry) throw noSuchLogin(harness, request.label, same);
    if (same.some((e) => e.label === request.to)) {
      throw new OffrunError(
        "conflict",
        `${harness.displayName} already has a login '${request.to}'. Choose another name, or remove that login first.`,
      );
    }
    const renamed: LoginEntry = { ...entry, label: request.to };
    const logins = file.accounts.map((e) => (e === entry ? renamed : e));
    return {
      file: withReserveMoved(
        withDefault({ ...file, accounts: logins }, harness.id, request.label, request.to),
        harness.id,
        request.label,
        request.to,
      ),
      result: toLogin(renamed),
    };
  });
}

/** Sets (or, with undefined, clears) the login Start Agent preselects for a harness. */
export async function setDefaultLogin(request: {
  harness: string;
  label: string | undefined;
  processEnv?: NodeJS.ProcessEnv;
}): Promise<Login | undefined> {
  const harness = await findHarness(request.harness, { env: request.processEnv ?? process.env });
  const processEnv = request.processEnv ?? process.env;
  const login = request.label === undefined ? undefined : await findLogin(harness, request.label, processEnv);
  await updateLoginsFile(processEnv, async (file) => {
    // Looked up again under the file's lock: a login removed meanwhile is not left as the default.
    const same = file.accounts.filter((e) => e.harness === harness.id);
    if (login && !login.isDefault && !same.some((e) => e.label === login.label)) {
      throw noSuchLogin(harness, login.label, same);
    }
    return { file: withDefault(file, harness.id, undefined, login?.label), result: undefined };
  });
  return login;
}

/** Throws unless `percent` is a reserve: a number from 0 to 100. */
export function checkReservePercent(percent: number): void {
  if (!Number.isFinite(percent) || percent < 0 || percent > 100) {
    throw new OffrunError("invalid_input", `A reserve is a percentage from 0 to 100; '${percent}' is not.`);
  }
}

/**
 * Sets the room a login keeps back from automatic picks (0 clears it). A login below its reserve
 * is passed by when Offrun chooses (start, failover, review, resume); pinning it still works.
 */
export async function setReserve(request: {
  harness: string;
  label: string;
  percent: number;
  processEnv?: NodeJS.ProcessEnv;
}): Promise<Login> {
  const harness = await findHarness(request.harness, { env: request.processEnv ?? process.env });
  const processEnv = request.processEnv ?? process.env;
  checkReservePercent(request.percent);
  const login = await findLogin(harness, request.label, processEnv);
  const key = `${harness.id}/${login.label}`;
  await updateLoginsFile(processEnv, async (file) => {
    const reserves = { ...file.reserves };
    if (request.percent === 0) delete reserves[key];
    else reserves[key] = request.percent;
    return { file: { ...file, reserves }, result: undefined };
  });
  return request.percent === 0 ? { ...login, reservePercent: 0 } : { ...login, reservePercent: request.percent };
}
