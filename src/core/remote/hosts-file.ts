import path from "node:path";
import * as z from "zod";
import { isOffrunError, OffrunError } from "../foundation/errors.js";
import { reportStateProblem } from "../foundation/state-problems.js";
import { offrunHome, userPaths } from "../foundation/paths.js";
import { shellLine, shellQuote } from "../foundation/shell-quote.js";
import { readJsonFile, withFileLock, writeJsonAtomic } from "../foundation/store.js";

/**
 * `~/.offrun/hosts.json`: the other machines whose companions this one talks to over SSH. A host
 * is a name for the faces (`devbox:fix-upload`) and where ssh goes: a name from ~/.ssh/config or
 * an `ssh://user@host:port` address. Offrun keeps no key: ssh's own config, agent and known_hosts
 * decide how it signs in and whom it trusts.
 */

const HOST_NAME = /^[a-z0-9][a-z0-9_-]{0,31}$/;

export const hostSchema = z.object({
  name: z.string().regex(HOST_NAME),
  /** `ssh://[user@]host[:port]`, or a Host of the user's ssh config (also `user@host`). */
  destination: z.string().min(1),
  /** An ssh config file to use instead of ~/.ssh/config (`ssh -F`). */
  sshConfig: z.string().optional(),
  /** How to run offrun on the host when it is not on the PATH of its non-interactive shell. */
  offrun: z.string().optional(),
  /** The most one agent's copy here may hold, in MB (companion/copy-budget.ts); unset: the default. */
  copyMB: z.number().int().positive().optional(),
  /** The most all of this host's copies here may hold together, set-aside ones included, in MB; unset: the default. */
  folderMB: z.number().int().positive().optional(),
  addedAt: z.string(),
});
export type Host = z.infer<typeof hostSchema>;

const fileSchema = z.object({ version: z.literal(1), hosts: z.array(hostSchema) });

const FIX =
  "Fix that entry, or move the file aside and add the hosts again with `offrun hosts add <name> <destination>`.";

export function hostsFile(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(userPaths(offrunHome(env)).home, "hosts.json");
}

/**
 * The hosts. A corrupt file is reported (state-problems.ts) and read as none: this machine's
 * agents, and every listing of them, go on. A change (add, rm) and naming one host refuse until
 * the file is fixed: a change made on top of it read as empty would drop every host in it.
 */
export async function readHosts(env: NodeJS.ProcessEnv = process.env): Promise<Host[]> {
  try {
    return await readHostsStrictly(env);
  } catch (error) {
    if (!isOffrunError(error, "invalid_file")) throw error;
    reportStateProblem({
      file: hostsFile(env),
      message: `${error.message.split("\n").join(" ")} Until then Offrun reaches no remote host.`,
    });
    return [];
  }
}

async function readHostsStrictly(env: NodeJS.ProcessEnv): Promise<Host[]> {
  return (await readJsonFile(hostsFile(env), fileSchema, FIX))?.hosts ?? [];
}

export async function findHost(name: string, env: NodeJS.ProcessEnv = process.env): Promise<Host> {
  const hosts = await readHostsStrictly(env);
  const host = hosts.find((h) => h.name === name);
  if (host) return host;
  const known = hosts.length > 0 ? `Hosts: ${hosts.map((h) => h.name).join(", ")}.` : "No host is added yet.";
  throw new OffrunError(
    "not_found",
    `No host named '${name}'. ${known} Add one: offrun hosts add ${name} <destination>`,
  );
}

export function hostNameProblem(name: string): string | undefined {
  if (HOST_NAME.test(name)) return undefined;
  return `'${name}' cannot be a host name: use up to 32 lowercase letters, digits, '-' and '_' (it goes before the ':' in ${name}:agent)`;
}

/** Where ssh goes and how: the arguments before the remote command. Throws for an address ssh would misread. */
export function sshTarget(host: Pick<Host, "destination" | "sshConfig">): string[] {
  const args: string[] = [];
  if (host.sshConfig) args.push("-F", host.sshConfig);
  const destination = host.destination;
  // A leading '-' would be read by ssh as an option (the ProxyCommand trick of CVE-2017-1000117).
  // eslint-disable-next-line no-control-regex
  if (destination.startsWith("-") || /[\s\u0000-\u001f]/.test(destination)) {
    throw new OffrunError(
      "invalid_input",
      `'${destination}' is not an ssh destination. Use a Host of ~/.ssh/config, user@host or ssh://user@host:port.`,
    );
  }
  if (destination.startsWith("ssh://")) {
    let url: URL;
    try {
      url = new URL(destination);
    } catch {
      throw new OffrunError(
        "invalid_input",
        `'${destination}' is not an ssh:// address: write it as ssh://user@host:port.`,
      );
    }
    if (!url.hostname || url.pathname.replace(/^\/$/, "") !== "") {
      throw new OffrunError(
        "invalid_input",
        `'${destination}' is not an ssh:// address: write it as ssh://user@host:port.`,
      );
    }
    if (url.port) args.push("-p", url.port);
    const user = decodeURIComponent(url.username);
    const hostname = url.hostname.replace(/^\[(.*)\]$/, "$1");
    args.push(user ? `${user}@${hostname}` : hostname);
    return args;
  }
  args.push(destination);
  return args;
}

/**
 * A command line for the user to type here that runs `offrunArgs` on the host in a terminal
 * ("ssh -t devbox offrun logins login claude work"): for what must happen there, a sign-in.
 */
export function sshCommandText(host: Pick<Host, "destination" | "sshConfig" | "offrun">, offrunArgs: string[]): string {
  return shellLine(["ssh", "-t", ...sshTarget(host), "--", host.offrun ?? "offrun", ...offrunArgs]);
}

/** A command line for the user to type here that opens a shell on the host in `dir`. */
export function sshShellText(host: Pick<Host, "destination" | "sshConfig">, dir: string): string {
  return shellLine(["ssh", "-t", ...sshTarget(host), "--", `cd ${shellQuote(dir)} && exec "\${SHELL:-sh}" -l`]);
}

export async function addHost(
  entry: Omit<Host, "addedAt">,
  env: NodeJS.ProcessEnv = process.env,
  now = new Date(),
): Promise<Host> {
  const problem = hostNameProblem(entry.name);
  if (problem) throw new OffrunError("invalid_input", `${problem}.`);
  sshTarget(entry);
  const sshConfig = entry.sshConfig ? path.resolve(entry.sshConfig) : undefined;
  const host: Host = { ...entry, ...(sshConfig ? { sshConfig } : {}), addedAt: now.toISOString() };
  return update(env, (hosts) => {
    if (hosts.some((h) => h.name === entry.name)) {
      throw new OffrunError(
        "conflict",
        `A host named '${entry.name}' exists. Remove it first: offrun hosts rm ${entry.name}`,
      );
    }
    return { hosts: [...hosts, host], result: host };
  });
}

export async function removeHost(name: string, env: NodeJS.ProcessEnv = process.env): Promise<Host> {
  return update(env, (hosts) => {
    const host = hosts.find((h) => h.name === name);
    if (!host) throw new OffrunError("not_found", `No host named '${name}'.`);
    return { hosts: hosts.filter((h) => h !== host), result: host };
  });
}

/** Sets a host's budgets for its copies here (`offrun hosts budget`); the companion reconnects to it and copies by them. */
export async function setHostBudget(
  name: string,
  budget: Pick<Host, "copyMB" | "folderMB">,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Host> {
  return update(env, (hosts) => {
    const host = hosts.find((h) => h.name === name);
    if (!host) throw new OffrunError("not_found", `No host named '${name}'.`);
    const changed = { ...host, ...budget };
    return { hosts: hosts.map((h) => (h === host ? changed : h)), result: changed };
  });
}

async function update<T>(env: NodeJS.ProcessEnv, change: (hosts: Host[]) => { hosts: Host[]; result: T }): Promise<T> {
  const file = hostsFile(env);
  return withFileLock(file, async () => {
    const changed = change(await readHostsStrictly(env));
    await writeJsonAtomic(file, { version: 1, hosts: changed.hosts });
    return changed.result;
  });
}
