import path from "node:path";
import { knownProjects } from "../../core/foundation/project.js";
import { askHosts } from "../../core/remote/ask-hosts.js";
import { loadHostLogins } from "./host-logins.js";
import type { HarnessChoice, StartOptions } from "./start-options.js";

/**
 * Start Agent on another machine (core/remote): the host's projects and its CLIs' logins, as the
 * form lists this Mac's. In the form's Project dropdown a host's project is `devbox:/srv/app`;
 * this Mac's are absolute paths, so the two never read alike.
 */

export interface HostProjects {
  host: string;
  projects: { root: string; name: string }[];
  /** Why the host's projects could not be listed (not connected, no companion). */
  problem?: string;
}

/** The Project dropdown's value for a host's project. */
export function hostProjectValue(host: string, root: string): string {
  return `${host}:${root}`;
}

/** A Project dropdown value as the host (undefined for this Mac) and the project's path there. */
export function parseProjectValue(value: string): { host?: string; root: string } {
  if (value === "" || path.isAbsolute(value)) return { root: value };
  const colon = value.indexOf(":");
  return colon === -1 ? { root: value } : { host: value.slice(0, colon), root: value.slice(colon + 1) };
}

/** Every host's projects (those its user has run agents in), each host time-boxed. */
export async function loadHostProjects(): Promise<HostProjects[]> {
  return (await askHosts("hosts.agents")).map((h) =>
    h.ok
      ? { host: h.host, projects: h.value.projects.map((p) => ({ root: p.root, name: path.posix.basename(p.root) })) }
      : { host: h.host, projects: [], problem: h.message },
  );
}

/** A host's CLIs and their logins, for the form's dropdowns and the Agents view's submenus. */
export async function hostHarnessChoices(host: string): Promise<HarnessChoice[]> {
  const answer = (await loadHostLogins()).find((h) => h.host === host);
  if (!answer) throw new Error(`No host named ${host}: add it with offrun hosts add ${host} <destination>.`);
  if (!answer.ok) throw new Error(`${host} did not answer: ${answer.message}`);
  return answer.harnesses.map((h) => ({
    id: h.id,
    name: h.name,
    installed: true,
    installHint: "",
    logins: h.logins.map((l) => ({ label: l.label, title: l.title, room: l.quota.room, limited: l.quota.limited })),
    // The host's companion picks the login with the most room when none is chosen.
    pick: undefined,
    defaultLogin: undefined,
  }));
}

/** The Start Agent form's options for a project on a host: its CLIs; its branches are not listed. */
export async function loadHostStartOptions(host: string, root: string): Promise<StartOptions> {
  const [harnesses, roots] = await Promise.all([hostHarnessChoices(host), knownProjects()]);
  const withRoom = harnesses.find((h) => h.logins.some((l) => !l.limited && l.room !== 0));
  return {
    projects: roots.map((r) => ({ root: r, name: path.basename(r) })),
    project: hostProjectValue(host, root),
    host,
    harnesses,
    defaultHarness: withRoom?.id ?? harnesses[0]?.id ?? "claude",
    defaultMode: "build",
    sandbox: false,
    branches: [],
  };
}
