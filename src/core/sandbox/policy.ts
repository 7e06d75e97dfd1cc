import path from "node:path";
import { urlHost } from "../foundation/urls.js";

/**
 * What one sandboxed turn may touch, decided by Offrun from the agent, its login and the project;
 * turned into the sandbox runtime's settings by `runtimeSettings`. Every path is absolute.
 */
export interface SandboxScope {
  /** The user's home, for the deny list (`~/.ssh`, ...). */
  userHome: string;
  /** Offrun's own folder: nothing inside may read it, but for the login's home when it lives there. */
  offrunHome: string;
  worktree: string;
  /** The repository's git folder (`git rev-parse --git-common-dir`): commits from the worktree write there. */
  gitCommonDir: string;
  /** The agent's memory folder (plan.md, dead-ends.md); none for a reviewer. */
  memoryDir?: string;
  /** The login's CLI home (sessions, caches) and the files beside it the CLI writes (Claude's ~/.claude.json). */
  loginWrites: readonly string[];
  /** A temp folder of this agent's own. */
  tmpDir: string;
  /** Other logins' homes, of every CLI: neither read nor written. */
  otherHomes: readonly string[];
  /** Other projects Offrun knows: neither read nor written. */
  otherProjects: readonly string[];
  /** Hosts the CLI talks to (`host` or `host:port`). */
  hosts: readonly string[];
  /** What the project's config adds (`sandbox.allowWrite`), already absolute. */
  extraWrites: readonly string[];
  /** A Planner turn: the worktree and the git folder are read-only, its memory stays writable. */
  readOnlyWorktree?: boolean;
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

/** The settings file of `@anthropic-ai/sandbox-runtime` 0.0.83 (its `SandboxRuntimeConfigSchema`), the part we set. */
export interface RuntimeSettings {
  network: { allowedDomains: string[]; deniedDomains: string[] };
  filesystem: { denyRead: string[]; allowRead: string[]; allowWrite: string[]; denyWrite: string[] };
}

/**
 * The runtime's settings for a scope. Reads are open but for the deny list; the runtime gives
 * `allowRead` precedence over a broader `denyRead`, which lets the login's home inside a denied
 * `~/.offrun` stay readable while the other logins there are not. Writes are closed but for the
 * allow list; `denyWrite` wins over `allowWrite`, which keeps git's hooks and config out of reach
 * (a hook written by an agent would run outside the sandbox at the user's next commit).
 */
export function runtimeSettings(scope: SandboxScope): RuntimeSettings {
  const own = [...scope.loginWrites, scope.tmpDir];
  return {
    network: { allowedDomains: unique(scope.hosts.flatMap(allowedEntries)), deniedDomains: [] },
    filesystem: {
      denyRead: unique([
        ...PROTECTED_IN_HOME.map((entry) => path.join(scope.userHome, entry)),
        scope.offrunHome,
        // A home that holds this turn's own folders (a custom agent whose home is HOME) is no one else's.
        ...scope.otherHomes.filter(
          (home) => ![...own, scope.worktree].some((mine) => isInside(home, mine) || isInside(mine, home)),
        ),
        ...scope.otherProjects.filter((root) => !isInside(scope.worktree, root)),
      ]),
      allowRead: unique(own.filter((entry) => isInside(entry, scope.offrunHome))),
      allowWrite: unique([
        ...(scope.readOnlyWorktree ? [] : [scope.worktree, scope.gitCommonDir]),
        ...(scope.memoryDir ? [scope.memoryDir] : []),
        ...own,
        ...scope.extraWrites,
      ]),
      denyWrite: [path.join(scope.gitCommonDir, "hooks"), path.join(scope.gitCommonDir, "config")],
    },
  };
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

/** Whether any of the hosts is on this machine's loopback (the CLI then needs the proxy for it). */
export function reachesLoopback(hosts: readonly string[]): boolean {
  return hosts.some((host) => isLoopbackName(splitHost(host).name));
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
export function hostsInEnvironment(env: NodeJS.ProcessEnv): string[] {
  const hosts: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (!value || !/(_BASE_URL|_API_BASE|_ENDPOINT|_HOST_URL)$/.test(name)) continue;
    const host = urlHost(value);
    if (host) hosts.push(host);
  }
  return unique(hosts);
}

function isInside(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}
