import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { listHarnesses } from "../../harnesses/registry.js";
import type { Harness } from "../../harnesses/types.js";
import type { Login } from "../foundation/login-model.js";
import type { AgentRecord, ProjectConfig } from "../foundation/model.js";
import { projectPaths, userPaths } from "../foundation/paths.js";
import type { Command, RunOptions, StreamOptions } from "../foundation/process.js";
import { OffrunError } from "../foundation/errors.js";
import { knownProjects } from "../foundation/project.js";
import { localRunner, wrappedRunner, type PipedOptions, type ProcessRunner } from "../foundation/runner.js";
import { listLogins } from "../logins/store.js";
import { RefusalWatch } from "./refusals.js";
import {
  hostsInEnvironment,
  portlessLoopback,
  reachesLoopback,
  runtimeSettings,
  type AllowedHost,
  type SandboxScope,
} from "./policy.js";
import { sandboxCommands, type SandboxedCommands } from "./host.js";
import { keepAsFound } from "./kept.js";
import { gitScope, linksOf } from "./git-scope.js";
import { closeGitTurn, openGitTurn, sandboxFolder } from "./git-turn.js";
import { sandboxEnvironment } from "./environment.js";
import { assertSandboxAvailable } from "./support.js";

/**
 * What the runtime puts in NO_PROXY (0.0.83), less the loopback names. A login whose API is on
 * this machine's loopback (a local gateway, the tests' fake server) must reach it through the
 * proxy: inside the sandbox, 127.0.0.1 is the sandbox's own network, where nothing listens.
 */
const NO_PROXY_WITHOUT_LOOPBACK = "169.254.0.0/16,10.0.0.0/8,172.16.0.0/12,192.168.0.0/16";

export interface SandboxRequest {
  /** The agent (or a reviewer standing in for one): its project, name, worktree and mode. */
  record: Pick<AgentRecord, "project" | "name" | "worktree" | "mode"> & { branch?: string; base?: string };
  harness: Harness;
  login: Login;
  /** The turn's environment (the login's variables included). */
  env: NodeJS.ProcessEnv;
  config: ProjectConfig;
  inner?: ProcessRunner;
  /** False for a reviewer: no memory folder of its own to write. */
  writesMemory?: boolean;
  /** Says a remark of the sandbox's in the turn's log: a write it did not open, a file it put back. */
  warn(message: string): Promise<void>;
}

/** One sandboxed turn: where its CLI runs, and what the sandbox refused on the way. */
export interface SandboxTurn {
  runner: ProcessRunner;
  refusals: RefusalWatch;
  /**
   * The turn is over: its network list goes, and what it must leave as it found (the git links,
   * the CLI's executable keys) is checked and put back; what had to be is said with `warn`.
   */
  close(): Promise<void>;
}

/**
 * Opens the sandbox for one turn on one login (a failover opens another: the next login's home
 * is writable for that login only). The policy is kept in a settings file the sandbox can neither
 * read nor write (what the turn ran under, for the user to see), and each command of the turn is
 * wrapped by the runtime the companion keeps running (host.ts).
 */
export async function openSandbox(request: SandboxRequest): Promise<SandboxTurn> {
  await assertSandboxAvailable();
  const { record, harness, login } = request;
  const unready = await harness.sandbox.unready?.(login.home, request.env);
  if (unready) throw new OffrunError("not_installed", unready);
  const settle = await harness.sandbox.prepare?.(login.home, request.env, {
    project: record.project,
    worktree: record.worktree,
  });
  const { scope, variables, absentExecutable } = await sandboxScope(request);
  const folder = sandboxFolder(record);
  await fs.mkdir(scope.tmpDir, { recursive: true, mode: 0o700 });
  const { settings, refusedWrites } = runtimeSettings(scope);
  await fs.writeFile(path.join(folder, "settings.json"), JSON.stringify(settings, null, 2) + "\n", { mode: 0o600 });
  const kept = await keepAsFound(
    [...(scope.git ? linksOf(scope.git, record.worktree) : []), ...absentExecutable],
    harness.sandbox.guardedKeys?.(login.home, request.env) ?? [],
  );
  for (const host of request.config.sandbox.allowHosts.filter(portlessLoopback)) {
    await request.warn(`The sandbox did not open ${host}: a loopback host needs its port (${host}:8080, say).`);
  }
  for (const { path: entry, why } of refusedWrites) {
    await request.warn(`The sandbox did not open ${entry} for writing: ${why}. The turn runs without it.`);
  }
  const quarantine = scope.git ? await openGitTurn(record, scope.git) : undefined;
  for (const message of quarantine?.said ?? []) await request.warn(message);
  const commands = await sandboxCommands(settings, scope.tmpDir);
  const loopback = reachesLoopback(scope.hosts);
  const wrap = async (command: Command): Promise<Command> => {
    const inner = loopback
      ? {
          ...command,
          file: "env",
          args: [
            `NO_PROXY=${NO_PROXY_WITHOUT_LOOPBACK}`,
            `no_proxy=${NO_PROXY_WITHOUT_LOOPBACK}`,
            command.file,
            ...command.args,
          ],
        }
      : command;
    const wrapped = await commands.wrap(inner);
    const env = sandboxEnvironment(command.env ?? request.env, variables);
    return { ...wrapped, env: { ...env, CLAUDE_CODE_TMPDIR: scope.tmpDir, ...quarantine?.env } };
  };
  return {
    runner: releasingRunner(wrappedRunner(wrap, request.inner ?? localRunner), commands),
    refusals: new RefusalWatch(
      () => commands.refusalLines(),
      settings.filesystem.denyRead,
      scope.userHome,
      scope.hosts,
    ),
    close: async () => {
      commands.close();
      // Never throws: the turn is over, and what could not be checked is said instead.
      const said = await kept
        .restore()
        .catch((error: unknown) => [
          `The sandbox could not check what the turn must leave as it found: ${error instanceof Error ? error.message : String(error)}. Check the worktree's .git file and the login's settings before running git or the CLI there.`,
        ]);
      for (const message of said) await request.warn(message).catch(() => undefined);
      const settled = await (settle?.() ?? Promise.resolve([])).catch((error: unknown) => [
        `The sandbox could not check the ${harness.displayName} login's project folders after the turn: ${error instanceof Error ? error.message : String(error)}.`,
      ]);
      for (const message of settled) await request.warn(message).catch(() => undefined);
      if (scope.git && quarantine) {
        for (const message of await closeGitTurn(record, scope.git, quarantine.verified)) {
          await request.warn(message).catch(() => undefined);
        }
      }
    },
  };
}

/**
 * Each command the runtime wrapped is released when its process is over, so that the runtime
 * removes the placeholders it made on this machine for paths that must not be created (an empty
 * `.bashrc` in the turn's temp folder, where each wrap runs) once no sandbox needs them.
 */
function releasingRunner(runner: ProcessRunner, commands: SandboxedCommands): ProcessRunner {
  return {
    run: (command: Command, options?: RunOptions) => runner.run(command, options).finally(() => commands.release()),
    stream: (command: Command, options: StreamOptions) =>
      runner.stream(command, options).finally(() => commands.release()),
    piped: (command: Command, options: PipedOptions) => {
      const process = runner.piped(command, options);
      void process.exited.finally(() => commands.release());
      return process;
    },
  };
}

async function sandboxScope(
  request: SandboxRequest,
): Promise<{ scope: SandboxScope; variables: string[]; absentExecutable: string[] }> {
  const { record, harness, login, env, config } = request;
  const userHome = env.HOME || os.homedir();
  const [gitScopeOfTurn, otherHomes, projects, configured, state, executable] = await Promise.all([
    record.mode === "plan" ? undefined : gitScope(record.worktree, record.branch),
    stateOfOtherLogins(login, env),
    knownProjects().catch(() => []),
    harness.sandbox.configured?.(login.home, env, record.worktree).catch(() => undefined),
    loginStateOf(harness, login.home, env),
    executableOf(harness, login.home, env, { project: record.project, worktree: record.worktree }),
  ]);
  const expand = (entry: string) =>
    entry.startsWith("~/") ? path.join(userHome, entry.slice(2)) : path.resolve(record.worktree, entry);
  const hosts: AllowedHost[] = [
    ...harness.sandbox.hosts.map((host) => ({ host, setting: `${harness.displayName}'s own hosts` })),
    ...hostsInEnvironment({ ...env, ...login.env }),
    ...(configured?.hosts ?? []).map((entry) => ({ ...entry, own: true })),
    ...config.sandbox.allowHosts
      .filter((host) => !portlessLoopback(host))
      .map((host) => ({ host, setting: "the project's sandbox.allowHosts" })),
  ];
  const scope: SandboxScope = {
    userHome,
    offrunHome: userPaths().home,
    worktree: record.worktree,
    ...(gitScopeOfTurn ? { git: gitScopeOfTurn } : {}),
    ...(request.writesMemory === false
      ? {}
      : { memoryDir: path.join(projectPaths(record.project).memory, record.name) }),
    loginState: state,
    loginExecutable: executable.present,
    tmpDir: path.join(sandboxFolder(record), "tmp"),
    otherHomes,
    otherProjects: projects.filter((root) => path.resolve(root) !== path.resolve(record.project)),
    hosts,
    extraWrites: config.sandbox.allowWrite.map(expand),
    readOnlyWorktree: record.mode === "plan",
  };
  const variables = [
    ...(harness.sandbox.env ?? []),
    ...(configured?.env ?? []),
    ...Object.keys(login.env),
    harness.homeVariable,
  ];
  return { scope, variables, absentExecutable: executable.absent };
}

/**
 * The login's executable configuration: what exists is held read-only; a missing folder is made
 * empty first (the runtime would hold it with a device file, where the CLI expects a folder: Codex
 * 0.171.0 stops, "failed to load rules ... Not a directory"); a missing file stays missing and is
 * removed after the turn if the turn made it (held by a placeholder, Gemini CLI 0.61.0 fails to
 * open its trustedFolders.json), but for the CLI's blank files (a `.env`), made empty first.
 */
async function executableOf(
  harness: Harness,
  home: string,
  env: NodeJS.ProcessEnv,
  turn: { project: string; worktree: string },
): Promise<{ present: string[]; absent: string[] }> {
  const config = harness.sandbox.executable?.(home, env, turn);
  if (!config) return { present: [], absent: [] };
  await Promise.all(config.folders.map((folder) => fs.mkdir(folder, { recursive: true, mode: 0o700 })));
  // Made empty when missing ("a": never truncates one that is there), then held like the others.
  await Promise.all(
    (config.blankFiles ?? []).map(async (file) => {
      await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
      await (await fs.open(file, "a", 0o600)).close();
    }),
  );
  const exists = await Promise.all(
    config.files.map((file) =>
      fs.lstat(file).then(
        () => true,
        () => false,
      ),
    ),
  );
  return {
    present: [
      ...config.files.filter((_, index) => exists[index]),
      ...(config.blankFiles ?? []),
      ...(config.placeholderFiles ?? []),
      ...config.folders,
    ],
    absent: config.files.filter((_, index) => !exists[index]),
  };
}

/** What a login of `harness` writes in a turn (its home, unless the CLI names its state), its folders made. */
async function loginStateOf(harness: Harness, home: string, env: NodeJS.ProcessEnv): Promise<string[]> {
  const state = stateOf(harness, home, env);
  await Promise.all(state.folders.map((folder) => fs.mkdir(folder, { recursive: true, mode: 0o700 })));
  return [...state.folders, ...state.files];
}

function stateOf(harness: Harness, home: string, env: NodeJS.ProcessEnv): { folders: string[]; files: string[] } {
  return harness.sandbox.state?.(home, env) ?? { folders: [home], files: [] };
}

/** Every other login's state, of every CLI (the Default logins included): closed to this turn. */
async function stateOfOtherLogins(own: Login, env: NodeJS.ProcessEnv): Promise<string[]> {
  const states: string[] = [];
  for (const harness of await listHarnesses({ env, tolerant: true })) {
    const logins = await listLogins(harness, env).catch(() => []);
    for (const home of [harness.defaultHome(env), ...logins.map((login) => login.home)]) {
      if (path.resolve(home) === path.resolve(own.home)) continue;
      const { folders, files } = stateOf(harness, home, env);
      // A CLI that writes nothing of its home (a custom agent that declares no state) is closed whole.
      states.push(...(folders.length + files.length > 0 ? [...folders, ...files] : [home]));
    }
  }
  return [...new Set(states)];
}
