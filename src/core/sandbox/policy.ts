import path from "node:path";
import { hostsOfUrlVariables } from "../foundation/urls.js";

/**
 * What one sandboxed turn may touch, decided by Offrun from the agent, its login and the project;
 * turned into the sandbox runtime's settings by `runtimeSettings`. Every path is absolute.
 */
export interface SandboxScope {
  /** The user's home, for the deny list (`~/.ssh`, ...). Never writable, nor anything above it. */
  userHome: string;
  /** Offrun's own folder: nothing inside may read it, but for the login's home when it lives there. */
  offrunHome: string;
  worktree: string;
  /** What a commit on the agent's own branch writes in the repository's git folder; none for a Planner or a reviewer. */
  git?: GitScope;
  /** The agent's memory folder (plan.md, dead-ends.md); none for a reviewer. */
  memoryDir?: string;
  /** What the login's CLI writes in a turn: sessions, caches, credentials refresh, state. */
  loginState: readonly string[];
  /** The CLI's executable configuration inside that state: read-only. */
  loginExecutable: readonly string[];
  /** A temp folder of this agent's own. */
  tmpDir: string;
  /** Other logins' state, of every CLI: neither read nor written. */
  otherHomes: readonly string[];
  /** Other projects Offrun knows: neither read nor written. */
  otherProjects: readonly string[];
  /** Hosts the turn may reach (`host` or `host:port`), each with where it came from. */
  hosts: readonly AllowedHost[];
  /** What the project's config adds (`sandbox.allowWrite`), already absolute. */
  extraWrites: readonly string[];
  /** A Planner turn: the worktree and the git folder are read-only, its memory stays writable. */
  readOnlyWorktree?: boolean;
}

/** A host on a turn's list, and the setting that put it there (shown when the proxy refuses it). */
export interface AllowedHost {
  host: string;
  /** `settings.json env.ANTHROPIC_BASE_URL`, `the login's environment OPENAI_BASE_URL`, ... */
  setting: string;
  /** The login's own API (its environment or its config names it), not a built-in default. */
  own?: boolean;
  /** Named by a file of the repository's: listed to explain a refusal, never opened. */
  repository?: boolean;
}

/**
 * The git folder as a commit on the agent's branch needs it, and no more: the branch's ref and
 * its log, and the worktree's own folder (`HEAD`, `index`, `logs`, and the quarantine its new
 * objects go to: git/quarantine.ts). The links
 * that tell git where the repository is (`commondir`, `gitdir`, the worktree's `.git` file), its
 * config, `info/`, `modules/`, `packed-refs` and every other branch stay as they are: a command
 * planted there (a `core.fsmonitor`, a filter driver) would run at the user's next `git status`.
 */
export interface GitScope {
  /** `git rev-parse --git-common-dir`. */
  commonDir: string;
  /** The worktree's own git folder (`<common>/worktrees/<id>`). */
  gitDir: string;
  /** The loose ref file of the agent's branch (`<common>/refs/heads/offrun/<agent>`). */
  branchRef: string;
  /** Other branches' loose refs (and their logs) in the folders the branch's ref shares. */
  otherRefs: readonly string[];
}

/** Secrets of the user's that no agent needs: read by nothing in the sandbox. */
export const PROTECTED_IN_HOME = [
  ".ssh",
  ".aws",
  ".gnupg",
  ".config/gh",
  ".config/gcloud",
  ".azure",
  ".kube",
  ".docker/config.json",
  ".netrc",
  ".git-credentials",
  ".password-store",
] as const;

/**
 * The git folder's files, besides the branch's ref, that a turn writes. Not `objects/`: new
 * objects go to the quarantine inside the worktree's own folder (git/quarantine.ts).
 */
export function gitWrites(git: GitScope): string[] {
  return [
    path.dirname(git.branchRef),
    path.join(git.commonDir, "logs", path.relative(git.commonDir, path.dirname(git.branchRef))),
    git.gitDir,
  ];
}

/** Inside the writable git folders, what stays as it is: the links, per-worktree config, other branches. */
export function gitDenies(git: GitScope): string[] {
  return [
    path.join(git.gitDir, "commondir"),
    path.join(git.gitDir, "gitdir"),
    path.join(git.gitDir, "config.worktree"),
    ...git.otherRefs,
  ];
}

/** The runtime's settings file of `@anthropic-ai/sandbox-runtime` 0.0.83 (its `SandboxRuntimeConfigSchema`), the part we set. */
export interface RuntimeSettings {
  network: { allowedDomains: string[]; deniedDomains: string[] };
  filesystem: { denyRead: string[]; allowRead: string[]; allowWrite: string[]; denyWrite: string[] };
}

/** A policy, and the writes it left out because they would open too much. */
export interface Policy {
  settings: RuntimeSettings;
  /** Entries refused, each with why (`~` would make every dotfile writable). */
  refusedWrites: { path: string; why: string }[];
}

/**
 * The runtime's settings for a scope. Reads are open but for the deny list; the runtime gives
 * `allowRead` precedence over a broader `denyRead`, which lets the login's home inside a denied
 * `~/.offrun` stay readable while the other logins there are not. Writes are closed but for the
 * allow list, and `denyWrite` wins over `allowWrite`: the CLI's executable configuration and the
 * git folder's links stay read-only inside folders that are otherwise writable. No write entry may
 * be the user's home or above it, Offrun's folder, or hold a secret, another login or another
 * project: such an entry (a project's `allowWrite: ["~"]`) is refused, not widened to.
 */
export function runtimeSettings(scope: SandboxScope): Policy {
  const refusedWrites: Policy["refusedWrites"] = [];
  // The login's state first: a state folder that is the home itself must not make the rest look like its own.
  const state = scope.loginState.filter((entry) => {
    const why = holdsTheHome(entry, scope);
    if (why) refusedWrites.push({ path: entry, why });
    return !why;
  });
  const own = [...state, scope.tmpDir];
  const closedToReads = [
    ...PROTECTED_IN_HOME.map((entry) => path.join(scope.userHome, entry)),
    // A home that holds this turn's own folders (a custom agent whose home is HOME) is no one else's.
    ...scope.otherHomes.filter(
      (home) => ![...own, scope.worktree].some((mine) => isInside(home, mine) || isInside(mine, home)),
    ),
    ...scope.otherProjects.filter((root) => !isInside(scope.worktree, root)),
  ];
  const wanted = [
    ...(scope.readOnlyWorktree ? [] : [scope.worktree, ...(scope.git ? gitWrites(scope.git) : [])]),
    ...(scope.memoryDir ? [scope.memoryDir] : []),
    ...own,
    ...scope.extraWrites,
  ];
  const allowWrite = wanted.filter((entry) => {
    const why = tooWide(entry, scope, own, closedToReads);
    if (why) refusedWrites.push({ path: entry, why });
    return !why;
  });
  return {
    settings: {
      network: {
        allowedDomains: unique(
          scope.hosts.filter((entry) => !entry.repository).flatMap(({ host }) => allowedEntries(host)),
        ),
        deniedDomains: [],
      },
      filesystem: {
        denyRead: unique([...closedToReads, scope.offrunHome]),
        allowRead: unique(own.filter((entry) => isInside(entry, scope.offrunHome))),
        allowWrite: unique(allowWrite),
        denyWrite: unique([
          ...scope.loginExecutable,
          // The worktree's `.git` file says where its repository is: git follows it from any command.
          ...(scope.readOnlyWorktree
            ? []
            : [path.join(scope.worktree, ".git"), ...(scope.git ? gitDenies(scope.git) : [])]),
        ]),
      },
    },
    refusedWrites: uniqueBy(refusedWrites, (entry) => entry.path),
  };
}

/** Files in the home that a shell, git or npm reads at every start: never written by a turn. */
const SHELL_AND_TOOL_DOTFILES = new Set([
  ".bashrc",
  ".bash_profile",
  ".bash_login",
  ".bash_logout",
  ".profile",
  ".zshrc",
  ".zprofile",
  ".zshenv",
  ".zlogin",
  ".inputrc",
  ".gitconfig",
  ".npmrc",
  ".yarnrc",
  ".pypirc",
]);

/** Why a write entry would open the user's home or Offrun's folder as a whole, or undefined. */
function holdsTheHome(entry: string, scope: SandboxScope): string | undefined {
  if (isInside(scope.userHome, entry)) return "it is the user's home or holds it: every dotfile would be writable";
  if (isInside(scope.offrunHome, entry)) return "it holds Offrun's own folder (records, other logins)";
  return undefined;
}

/** Why a write entry would open more than a turn may have, or undefined when it is fine. */
function tooWide(
  entry: string,
  scope: SandboxScope,
  own: readonly string[],
  closedToReads: readonly string[],
): string | undefined {
  const home = holdsTheHome(entry, scope);
  if (home) return home;
  if (path.dirname(entry) === scope.userHome && SHELL_AND_TOOL_DOTFILES.has(path.basename(entry))) {
    return "it is a dotfile that your shell or git runs or obeys outside the sandbox";
  }
  if (isInside(entry, scope.offrunHome) && !own.some((mine) => isInside(entry, mine))) {
    return "it is inside Offrun's own folder, which is not the turn's";
  }
  const secret = closedToReads.find((closed) => isInside(closed, entry) || isInside(entry, closed));
  if (secret) return `it holds or is inside ${secret}, which the sandbox keeps closed`;
  return undefined;
}

/**
 * The allow-list entries for one host. A loopback address (a local gateway, the tests' fake
 * server) is reached through the runtime's proxy by its literal address and port: the runtime
 * refuses names that resolve to loopback unless the literal is listed.
 */
function allowedEntries(host: string): string[] {
  const { name, port } = splitHost(host);
  if (!isLoopbackName(name)) return [host];
  const literal = name === "::1" || name === "[::1]" ? "[::1]" : "127.0.0.1";
  return port ? [`${literal}:${port}`, `localhost:${port}`] : [literal, "localhost"];
}

/**
 * A loopback host a project names must say its port: `localhost` alone would open every service
 * of this machine (a database, another agent's companion) to the sandbox.
 */
export function portlessLoopback(host: string): boolean {
  const { name, port } = splitHost(host);
  return isLoopbackName(name) && port === undefined;
}

/** Whether any of the hosts is on this machine's loopback (the CLI then needs the proxy for it). */
export function reachesLoopback(hosts: readonly AllowedHost[]): boolean {
  return hosts.some(({ host, repository }) => !repository && isLoopbackName(splitHost(host).name));
}

/** The entry of the list a refused connection (`host:port`) was meant for, if the list has one. */
export function hostRefused(hosts: readonly AllowedHost[], target: string): AllowedHost | undefined {
  const refused = splitHost(target);
  const sameName = (name: string) =>
    name === refused.name || (isLoopbackName(name) && isLoopbackName(refused.name) && refused.name !== "");
  const matches = hosts.filter(({ host }) => {
    const listed = splitHost(host);
    return sameName(listed.name) && (listed.port === undefined || listed.port === refused.port);
  });
  // The repository's setting is the one that explains a refusal: an opened entry is not refused.
  return matches.find((entry) => entry.repository) ?? matches[0];
}

function splitHost(host: string): { name: string; port?: string } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(host);
  if (bracketed) return { name: bracketed[1]!, ...(bracketed[2] ? { port: bracketed[2] } : {}) };
  const [name, port, ...rest] = host.split(":");
  if (rest.length > 0) return { name: host }; // a bare IPv6 address
  return { name: name!, ...(port ? { port } : {}) };
}

function isLoopbackName(name: string): boolean {
  return name === "localhost" || name === "::1" || /^127\.\d+\.\d+\.\d+$/.test(name);
}

/**
 * The hosts named by URLs in a turn's environment (`ANTHROPIC_BASE_URL`, `OPENAI_BASE_URL`, a
 * gateway's `*_ENDPOINT`): a login pointed at a gateway talks to it and to nothing else.
 */
export function hostsInEnvironment(env: NodeJS.ProcessEnv): AllowedHost[] {
  return hostsOfUrlVariables(env).map(({ name, host }) => ({
    host,
    setting: `the login's environment ${name}`,
    own: true,
  }));
}

export function isInside(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

function uniqueBy<T>(values: readonly T[], key: (value: T) => string): T[] {
  const seen = new Set<string>();
  return values.filter((value) => !seen.has(key(value)) && seen.add(key(value)) !== undefined);
}
