import path from "node:path";
import { defaultLogins, listLogins } from "../../core/logins/store.js";
import { locateBinary } from "../../core/foundation/binaries.js";
import { pickLogin } from "../../core/logins/ranking.js";
import { git } from "../../core/git/repo.js";
import { foundRepositories } from "../../core/git/repository-scan.js";
import type { Mode } from "../../core/foundation/model.js";
import { knownProjects, loadProjectSettings } from "../../core/foundation/project.js";
import { describeGated } from "../../core/foundation/trust.js";
import type { LoginReading } from "../../core/quota/ledger.js";
import { cachedLoginQuota } from "../../core/quota/pipeline.js";
import { listHarnesses } from "../../harnesses/registry.js";
import type { Harness } from "../../harnesses/types.js";
import { loginTitle, viewLoginQuota } from "../../core/logins/login-quota.js";

/** What the Start Agent form offers: projects, harnesses, their logins with headroom, branches. */

export interface LoginChoice {
  label: string;
  /** "Claude · Work: 23% used, resets 21:00" */
  title: string;
  room: number | undefined;
  limited: boolean;
}

export interface HarnessChoice {
  id: string;
  name: string;
  installed: boolean;
  installHint: string;
  logins: LoginChoice[];
  /** The login Offrun would pick now (most headroom); undefined when every one is limited. */
  pick: string | undefined;
  /** The login the user set as default (Agent Logins, `offrun logins default`): the form preselects it. */
  defaultLogin: string | undefined;
}

export interface StartOptions {
  projects: { root: string; name: string }[];
  project: string | undefined;
  /** The machine the project is on, when not this Mac (host-start.ts): its defaults are the host's. */
  host?: string;
  harnesses: HarnessChoice[];
  defaultHarness: string;
  defaultMode: Mode;
  /** The project's `sandbox.enabled`: whether its agents run in the sandbox unless the form says otherwise. */
  sandbox: boolean;
  branches: string[];
  /** The project's settings that wait for the user's trust (none: nothing to trust, or trusted). */
  untrusted?: { settings: ReturnType<typeof describeGated>; changedSince: boolean };
}

/** Pure: the logins of one harness as the form lists them, and the one Offrun would pick. */
export function harnessChoice(
  harness: Pick<Harness, "id" | "displayName" | "installHint">,
  installed: boolean,
  candidates: { login: Parameters<typeof pickLogin>[1][number]["login"]; quota: LoginReading }[],
  now: number,
  defaultLogin?: string,
): HarnessChoice {
  const logins = candidates.map(({ login, quota }) => {
    const view = viewLoginQuota(quota, now);
    return {
      label: login.label,
      title: loginTitle(harness.displayName, login.label, view),
      room: view.room,
      limited: view.limited,
    };
  });
  let pick: string | undefined;
  try {
    pick = pickLogin(harness as Harness, candidates, { inFlight: new Map(), now: new Date(now) }).login.label;
  } catch {
    pick = undefined; // every login is limited: the form says so and the user may still pick one
  }
  // A default that names a login since removed (a hand-edited file) preselects nothing.
  const preselect = logins.some((l) => l.label === defaultLogin) ? defaultLogin : undefined;
  return {
    id: harness.id,
    name: harness.displayName,
    installed,
    installHint: harness.installHint,
    logins,
    pick,
    defaultLogin: preselect,
  };
}

async function localBranches(root: string): Promise<string[]> {
  const result = await git(root, [
    "for-each-ref",
    "--sort=-committerdate",
    "--format=%(refname:short)",
    "refs/heads",
  ]).catch(() => undefined);
  return (result?.stdout ?? "").split("\n").filter(Boolean);
}

/**
 * The repositories in the usual code folders that are not known projects yet, most recently
 * changed first: the form lists them after the known ones, so a first start needs no typing.
 */
export async function loadFoundProjects(): Promise<{ root: string; name: string }[]> {
  const [known, found] = await Promise.all([knownProjects(), foundRepositories()]);
  // The rescan of a stale cache goes on behind the form; its answer is for the next open.
  void found.refreshed;
  const skip = new Set(known);
  return found.repositories.filter((r) => !skip.has(r.root)).map(({ root, name }) => ({ root, name }));
}

/**
 * The CLIs (built-in and the project's custom agents), whether each is installed, and their logins
 * with headroom: files only, no git. The Agents view's Switch Login… and Hand Off… read this when a
 * row is selected (the whole of loadStartOptions also lists branches and reads the project's settings).
 */
export async function loadHarnessChoices(
  options: { project?: string; env?: NodeJS.ProcessEnv; now?: number } = {},
): Promise<HarnessChoice[]> {
  const env = options.env ?? process.env;
  const now = options.now ?? Date.now();
  const [harnesses, defaults] = await Promise.all([
    listHarnesses({ project: options.project, env, tolerant: true }),
    defaultLogins(env),
  ]);
  return Promise.all(
    harnesses.map(async (harness) => {
      const [binary, logins] = await Promise.all([
        locateBinary(harness.id, harness.binaryName, env),
        listLogins(harness, env),
      ]);
      const candidates = await Promise.all(
        logins.map(async (login) => ({ login, quota: await cachedLoginQuota(login, new Date(now)) })),
      );
      return harnessChoice(harness, binary !== undefined, candidates, now, defaults[harness.id]);
    }),
  );
}

/** Reads everything the form needs for `project` (default: the most recently used project). */
export async function loadStartOptions(
  options: { project?: string; env?: NodeJS.ProcessEnv; now?: number } = {},
): Promise<StartOptions> {
  const env = options.env ?? process.env;
  const now = options.now ?? Date.now();
  const roots = await knownProjects();
  const project = options.project ?? roots[0];
  const projects = roots.map((root) => ({ root, name: path.basename(root) }));
  if (project && !roots.includes(project)) projects.unshift({ root: project, name: path.basename(project) });
  const choices = await loadHarnessChoices({ project, env, now });
  const settings = project ? await loadProjectSettings(project).catch(() => undefined) : undefined;
  const config = settings?.config;
  const untrusted = settings && settings.trust.withheld.length > 0 ? settings : undefined;
  return {
    projects,
    project,
    harnesses: choices,
    defaultHarness: config?.defaultHarness ?? choices.find((c) => c.installed)?.id ?? choices[0]!.id,
    defaultMode: config?.defaultMode ?? "build",
    sandbox: config?.sandbox.enabled ?? false,
    branches: project ? await localBranches(project) : [],
    ...(untrusted
      ? {
          untrusted: {
            settings: describeGated(untrusted.raw).filter(({ key }) => untrusted.trust.withheld.includes(key)),
            changedSince: untrusted.trust.changedSince,
          },
        }
      : {}),
  };
}
