import path from "node:path";
import {
  loginsRoot,
  addLogin,
  defaultLogins,
  findLogin,
  listLogins,
  removeLogin,
  setDefaultLogin,
  setReserve,
} from "../core/logins/store.js";
import { checkReservePercent } from "../core/logins/changes.js";
import { renameLogin } from "../core/logins/rename.js";
import { locateBinary } from "../core/foundation/binaries.js";
import type { LoginReading } from "../core/quota/ledger.js";
import { cachedLoginQuota } from "../core/quota/pipeline.js";
import { limitedUntilText } from "../core/foundation/time-words.js";
import { windowText } from "../core/quota/quota-window.js";
import { OffrunError } from "../core/foundation/errors.js";
import { throughCompanion } from "./context.js";
import { checkSignIn, type SignInEntry } from "../core/logins/sign-in.js";
import { findHarness, listHarnesses } from "../harnesses/registry.js";
import { openLogin } from "./login-sign-in.js";
import { notInstalledLines, table } from "./format.js";
import { screenWidth, wrap } from "./fit.js";
import { output, type GlobalOptions } from "./output.js";

/** `offrun logins ...`: the logins of each CLI, each in its own home. */

/** `offrun logins`: every login of every harness, with who is signed in to it. */
export async function list(options: GlobalOptions): Promise<void> {
  const registered = await listHarnesses({ tolerant: true });
  const harnesses = new Map(registered.map((h) => [h.id, h] as const));
  const binaries = new Map(
    await Promise.all(registered.map(async (h) => [h.id, await locateBinary(h.id, h.binaryName)] as const)),
  );
  const logins = await Promise.all(
    (await listLogins(registered)).map(async (login) => {
      const harness = harnesses.get(login.harness)!;
      // Asked now (and kept for the picker): a missing home is signed out without asking the CLI.
      const [signIn, quota] = await Promise.all([
        checkSignIn(login, harness, binaries.get(harness.id), process.env),
        cachedLoginQuota(login),
      ]);
      return {
        ...login,
        installed: binaries.get(harness.id) !== undefined,
        ...identityOf(signIn),
        signIn: { state: signIn.state, note: signIn.note },
        quota,
      };
    }),
  );
  const defaults = await defaultLogins();
  output(options, { accounts: logins, defaults }, () => {
    const width = screenWidth();
    // A CLI that is not installed cannot run, whatever its sign-in: one line names them all, so
    // none reads "SIGNED OUT" when the cause is that it is not there.
    const installed = logins.filter((l) => l.installed);
    const rows = installed.map((l) => [
      l.harness,
      defaults[l.harness] === l.label ? `${l.label} (default)` : l.label,
      l.signedIn === undefined ? "unknown" : l.signedIn ? "yes" : "SIGNED OUT",
      [l.email, l.detail, l.note].filter(Boolean).join(" · ") || "-",
      describeQuota(l.quota),
      l.home + (l.adopted && !l.isDefault ? " (adopted)" : ""),
    ]);
    const lines =
      rows.length > 0 ? [table(["HARNESS", "LOGIN", "SIGNED IN", "WHO", "QUOTA", "HOME"], rows, { width })] : [];
    const absent = registered.filter((h) => binaries.get(h.id) === undefined);
    const added = (id: string) => logins.filter((l) => l.harness === id && !l.isDefault).map((l) => l.label);
    const folded = notInstalledLines(
      absent.map((h) => ({ name: h.displayName, logins: added(h.id) })),
      { width },
    );
    if (folded.length > 0) lines.push(...(lines.length > 0 ? [""] : []), ...folded);
    const out = installed.find((l) => l.signedIn === false);
    if (out) lines.push("", ...wrap(`Sign in to a login with: offrun logins login ${out.harness} ${out.label}`, width));
    lines.push("", ...wrap("Add a login with its own home: offrun logins add <harness> <label>", width));
    return lines.join("\n");
  });
}

/** The fields `--json` has always had, from a sign-in check. */
function identityOf(entry: SignInEntry): {
  signedIn: boolean | undefined;
  email?: string;
  detail?: string;
  note?: string;
} {
  return {
    signedIn: entry.state === "unknown" ? undefined : entry.state === "signed-in",
    ...(entry.email ? { email: entry.email } : {}),
    ...(entry.detail ? { detail: entry.detail } : {}),
    ...(entry.note ? { note: entry.note } : {}),
  };
}

/** "5-Hour 23% used · resets 21:00" (the deciding window, as every face writes it), "limited until 21:00" or "unknown". */
function describeQuota(quota: LoginReading, now = Date.now()): string {
  if (quota.limitedUntil) return limitedUntilText(quota.limitedUntil, now);
  const blocking = quota.blocking;
  if (!blocking || blocking.usedPercent === undefined) return "unknown";
  return windowText(blocking, now);
}

interface AddOptions extends GlobalOptions {
  home?: string;
  env?: string[];
  /** False with --no-login. */
  login?: boolean;
}

function parseEnvPairs(pairs: string[] | undefined): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of pairs ?? []) {
    const eq = pair.indexOf("=");
    if (eq <= 0) throw new OffrunError("invalid_input", `--env expects KEY=VALUE, got '${pair}'.`);
    env[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return env;
}

export async function add(harnessId: string, label: string, options: AddOptions): Promise<void> {
  // Resolved here: the companion's working directory is not the user's.
  const home = options.home === undefined ? {} : { home: path.resolve(options.home) };
  const request = { harness: harnessId, label, ...home, env: parseEnvPairs(options.env) };
  const added = await throughCompanion(
    (client) => client.call("login.add", request),
    () => addLogin(request),
  );
  const created = `Added login '${added.label}' of ${(await findHarness(added.harness)).displayName}, home ${added.home}${
    added.adopted ? " (adopted: Offrun never deletes it)" : ""
  }.`;
  if (options.login === false) {
    const data = { account: added, login: undefined };
    output(options, data, () => `${created}\nSign in when you are ready: offrun logins login ${harnessId} ${label}`);
    return;
  }
  const login = await openLogin(added);
  output(options, { account: added, login }, () => `${created}\n${login.message}`);
}

export async function login(harnessId: string, label: string, options: GlobalOptions): Promise<void> {
  const login = await findLogin(harnessId, label);
  const result = await openLogin(login);
  // Nothing to sign in with: an error, not a success that says so.
  if (result.notInstalled) throw new OffrunError("not_installed", result.message);
  output(options, { account: login, login: result }, () => result.message);
}

export async function rm(
  harnessId: string,
  label: string,
  options: GlobalOptions & { purge?: boolean; force?: boolean },
): Promise<void> {
  const request = { harness: harnessId, label, purge: options.purge === true, force: options.force === true };
  const result = await throughCompanion<{
    account: { home: string };
    keptBecause?: "not-purged" | "adopted" | "outside-offrun" | "in-use";
  }>(
    (client) => client.call("login.remove", request),
    () => removeLogin(request),
  );
  const name = (await findHarness(harnessId)).displayName;
  const home = result.account.home;
  output(options, result, () => {
    const head = `Removed login '${label}' of ${name}.`;
    switch (result.keptBecause) {
      case undefined:
        return `${head} Deleted its home ${home}, with its sign-in and sessions.`;
      case "not-purged":
        return `${head} Its home ${home} is kept, with its sign-in and sessions: \`offrun logins add ${harnessId} ${label}\` takes it up again. Delete the folder yourself if you no longer need it.`;
      case "adopted":
        return `${head} Its home ${home} was adopted (it was yours before Offrun), so Offrun leaves it in place, even with --purge.`;
      case "in-use":
        return `${head} Its home ${home} is kept, even with --purge: agents on it need their sessions, which \`offrun switch <agent> --login <label>\` takes to another login.`;
      case "outside-offrun":
        return `${head} Its home ${home} is not inside ${loginsRoot()}, so Offrun leaves it in place, even with --purge.`;
    }
  });
}

export async function rename(harnessId: string, label: string, to: string, options: GlobalOptions): Promise<void> {
  // Through the companion, which holds the turn locks of the login's agents while it renames, so a
  // turn starting at that moment cannot run under the old name; by itself only when it cannot start.
  const request = { harness: harnessId, label, to };
  const result = await throughCompanion<{ account: { home: string }; agents: string[] }>(
    (client) => client.call("login.rename", request),
    () => renameLogin(request),
  );
  const name = (await findHarness(harnessId)).displayName;
  const moved = result.agents.length > 0 ? ` Its agents (${result.agents.join(", ")}) go on under the new name.` : "";
  output(
    options,
    result,
    () => `Renamed login '${label}' of ${name} to '${to}'; its home ${result.account.home} is unchanged.${moved}`,
  );
}

export async function setDefault(
  harnessId: string,
  label: string | undefined,
  options: GlobalOptions & { clear?: boolean },
): Promise<void> {
  if ((label === undefined) === (options.clear !== true)) {
    throw new OffrunError(
      "invalid_input",
      `Name a login (\`offrun logins default ${harnessId} work\`) or pass --clear, not both.`,
    );
  }
  const chosen = options.clear ? undefined : label;
  const { account: login } = await throughCompanion(
    (client) => client.call("login.default", { harness: harnessId, label: chosen ?? null }),
    async () => ({ account: (await setDefaultLogin({ harness: harnessId, label: chosen })) ?? null }),
  );
  const name = (await findHarness(harnessId)).displayName;
  output(options, { harness: harnessId, default: login?.label ?? null }, () =>
    login
      ? `Start Agent now preselects login '${login.label}' of ${name}. \`offrun start\` still picks by headroom unless you pass --login.`
      : `No default login for ${name}: Start Agent preselects the one with the most headroom.`,
  );
}

export async function reserve(
  harnessId: string,
  label: string,
  percent: string,
  options: GlobalOptions,
): Promise<void> {
  const value = Number(percent.replace(/%$/, ""));
  checkReservePercent(value); // before the request: NaN has no JSON
  const { account: login } = await throughCompanion(
    (client) => client.call("login.reserve", { harness: harnessId, label, percent: value }),
    async () => ({ account: await setReserve({ harness: harnessId, label, percent: value }) }),
  );
  const name = (await findHarness(harnessId)).displayName;
  output(options, { harness: harnessId, label: login.label, reservePercent: login.reservePercent ?? 0 }, () =>
    value === 0
      ? `Login '${login.label}' of ${name} keeps no reserve: automatic picks may use all of its room.`
      : `Login '${login.label}' of ${name} keeps its last ${value}% for you: start, failover, review and resume pass it by below that. Pin it with --login to use it anyway.`,
  );
}
