import path from "node:path";
import type { Caller, CompanionClient } from "../core/protocol/client.js";
import { OffrunError } from "../core/foundation/errors.js";
import { withCompanion } from "./context.js";
import { projectDir, type GlobalOptions } from "./output.js";

/** Options of a command that can act on another machine's agent. */
export interface HostOptions extends GlobalOptions {
  host?: string;
}

/** Who a per-agent command is about: an agent here, or `host:agent` (or --host) on another machine. */
export interface AgentTarget {
  name: string;
  /** Undefined for this machine. */
  host?: string;
  /** The project: on the host, its path there. */
  project: string;
  /** Where requests about the agent go. */
  caller: Caller;
  /** How to name the agent in a command the user may type next. */
  shown: string;
}

/** `devbox:fix-upload` → host devbox, agent fix-upload; a plain name is local unless --host says. */
export function splitTarget(arg: string, options: HostOptions): { host?: string; name: string } {
  const colon = arg.indexOf(":");
  if (colon === -1) return { ...(options.host ? { host: options.host } : {}), name: arg };
  const host = arg.slice(0, colon);
  const name = arg.slice(colon + 1);
  if (host === "" || name === "") {
    throw new OffrunError("invalid_input", `'${arg}' is not host:agent. Write it as devbox:fix-upload.`);
  }
  if (options.host && options.host !== host) {
    throw new OffrunError("invalid_input", `'${arg}' names host ${host}, but --host says ${options.host}.`);
  }
  return { host, name };
}

/** The project on a host: --project as given there (an absolute path), else found by the agent's name. */
export function remoteProject(options: GlobalOptions, host: string): string | undefined {
  if (options.project === undefined) return undefined;
  if (!path.isAbsolute(options.project)) {
    throw new OffrunError(
      "invalid_input",
      `--project ${options.project} is a path on ${host}: give it in full, e.g. --project /srv/app.`,
    );
  }
  return options.project;
}

/** Runs `fn` against the agent the command names, wherever it lives. */
export async function withAgent<T>(
  arg: string,
  options: HostOptions,
  fn: (target: AgentTarget, client: CompanionClient) => Promise<T>,
  /** How long the host may take to answer (a --wait for a whole turn waits long). */
  timeoutMs?: number,
): Promise<T> {
  const { host, name } = splitTarget(arg, options);
  return withCompanion(async (client) => {
    if (!host) return fn({ name, project: projectDir(options), caller: client, shown: name }, client);
    const caller = client.on(host, timeoutMs);
    const project = remoteProject(options, host) ?? (await locate(caller, host, name));
    return fn({ name, host, project, caller, shown: `${host}:${name}` }, client);
  });
}

/** The one project on the host with an agent of that name. */
async function locate(caller: Caller, host: string, name: string): Promise<string> {
  const listing = await caller.call("agents.list", {});
  const roots = listing.projects.filter((p) => p.agents.some((a) => a.record.name === name)).map((p) => p.root);
  if (roots.length === 1) return roots[0]!;
  if (roots.length === 0) {
    const names = listing.projects.flatMap((p) => p.agents.map((a) => a.record.name));
    const hint = names.length > 0 ? `Agents there: ${names.join(", ")}.` : "It has no agents yet.";
    throw new OffrunError("not_found", `No agent named '${name}' on ${host}. ${hint}`);
  }
  throw new OffrunError(
    "invalid_input",
    `${host} has an agent '${name}' in ${roots.length} projects (${roots.join(", ")}): say which with --project.`,
  );
}
