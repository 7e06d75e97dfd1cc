import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { listHarnesses } from "../../harnesses/registry.js";
import type { Harness } from "../../harnesses/types.js";
import type { Account } from "../foundation/account-model.js";
import type { AgentRecord, ProjectConfig } from "../foundation/model.js";
import { projectPaths, userPaths } from "../foundation/paths.js";
import { runCommand, type Command } from "../foundation/process.js";
import { knownProjects } from "../foundation/project.js";
import { localRunner, wrappedRunner, type ProcessRunner } from "../foundation/runner.js";
import { OffrunError } from "../foundation/errors.js";
import { listAccounts } from "../logins/accounts.js";
import { RefusalWatch } from "./refusals.js";
import { hostsInEnvironment, reachesLoopback, runtimeSettings, type SandboxScope } from "./policy.js";
import { sandboxCommands } from "./host.js";
import { assertSandboxAvailable } from "./support.js";

/**
 * What the runtime puts in NO_PROXY (0.0.83), less the loopback names. A login whose API is on
 * this machine's loopback (a local gateway, the tests' fake server) must reach it through the
 * proxy: inside the sandbox, 127.0.0.1 is the sandbox's own network, where nothing listens.
 */
const NO_PROXY_WITHOUT_LOOPBACK = "169.254.0.0/16,10.0.0.0/8,172.16.0.0/12,192.168.0.0/16";

export interface SandboxRequest {
  /** The agent (or a reviewer standing in for one): its project, name, worktree and mode. */
  record: Pick<AgentRecord, "project" | "name" | "worktree" | "mode">;
  harness: Harness;
  account: Account;
  /** The turn's environment (the login's variables included). */
  env: NodeJS.ProcessEnv;
  config: ProjectConfig;
  inner?: ProcessRunner;
  /** False for a reviewer: no memory folder of its own to write. */
  writesMemory?: boolean;
}

/** One sandboxed turn: where its CLI runs, and what the sandbox refused on the way. */
export interface SandboxTurn {
  runner: ProcessRunner;
  refusals: RefusalWatch;
  /** The turn is over: its network list goes. */
  close(): void;
}

/**
 * Opens the sandbox for one turn on one login (a failover opens another: the next login's home
 * is writable for that login only). The policy is kept in a settings file the sandbox can neither
 * read nor write (what the turn ran under, for the user to see), and each command of the turn is
 * wrapped by the runtime the companion keeps running (host.ts).
 */
export async function openSandbox(request: SandboxRequest): Promise<SandboxTurn> {
  await assertSandboxAvailable();
  const { record, env } = request;
  const scope = await sandboxScope(request);
  const folder = sandboxFolder(record);
  await fs.mkdir(scope.tmpDir, { recursive: true, mode: 0o700 });
  const settings = runtimeSettings(scope);
  await fs.writeFile(path.join(folder, "settings.json"), JSON.stringify(settings, null, 2) + "\n", { mode: 0o600 });
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
    return { ...wrapped, env: { ...(command.env ?? env), CLAUDE_CODE_TMPDIR: scope.tmpDir } };
  };
  return {
    runner: wrappedRunner(wrap, request.inner ?? localRunner),
    refusals: new RefusalWatch(() => commands.refusalLines(), settings.filesystem.denyRead, scope.userHome),
    close: () => commands.close(),
  };
}

/** `~/.offrun/sandbox/<project>-<hash>/<agent>`: the policy and the agent's temp folder, outside its reach. */
export function sandboxFolder(record: Pick<AgentRecord, "project" | "name">): string {
  const hash = createHash("sha256").update(record.project).digest("hex").slice(0, 10);
  return path.join(userPaths().home, "sandbox", `${path.basename(record.project)}-${hash}`, record.name);
}

async function sandboxScope(request: SandboxRequest): Promise<SandboxScope> {
  const { record, harness, account, env, config } = request;
  const userHome = env.HOME || os.homedir();
  const [gitCommonDir, otherHomes, projects, configured] = await Promise.all([
    commonDir(record.worktree),
    homesOfOtherLogins(account, env),
    knownProjects().catch(() => []),
    harness.sandbox.configuredHosts?.(account.home).catch(() => []) ?? Promise.resolve([]),
  ]);
  const expand = (entry: string) =>
    entry.startsWith("~/") ? path.join(userHome, entry.slice(2)) : path.resolve(record.worktree, entry);
  return {
    userHome,
    offrunHome: userPaths().home,
    worktree: record.worktree,
    gitCommonDir,
    ...(request.writesMemory === false
      ? {}
      : { memoryDir: path.join(projectPaths(record.project).memory, record.name) }),
    loginWrites: [account.home, ...(harness.sandbox.writes?.(account.home, env) ?? [])],
    tmpDir: path.join(sandboxFolder(record), "tmp"),
    otherHomes,
    otherProjects: projects.filter((root) => path.resolve(root) !== path.resolve(record.project)),
    hosts: [...harness.sandbox.hosts, ...hostsInEnvironment(env), ...configured, ...config.sandbox.allowHosts],
    extraWrites: config.sandbox.allowWrite.map(expand),
    readOnlyWorktree: record.mode === "plan",
  };
}

/** The repository's git folder, where commits made in the worktree land. */
async function commonDir(worktree: string): Promise<string> {
  const result = await runCommand(
    { file: "git", args: ["rev-parse", "--path-format=absolute", "--git-common-dir"], cwd: worktree },
    { timeoutMs: 10_000 },
  );
  const dir = result.stdout.trim();
  if (result.failed || !dir) {
    throw new OffrunError(
      "not_found",
      `The sandbox needs the worktree's git folder, and \`git rev-parse --git-common-dir\` failed in ${worktree}: ${result.stderr.trim() || "no answer"}. Check that the worktree still exists (\`git worktree list\`).`,
    );
  }
  return dir;
}

/** Every other login's home, of every CLI (the Default homes included): closed to this turn. */
async function homesOfOtherLogins(account: Account, env: NodeJS.ProcessEnv): Promise<string[]> {
  const homes: string[] = [];
  for (const harness of await listHarnesses({ env, tolerant: true })) {
    const logins = await listAccounts(harness, env).catch(() => []);
    homes.push(harness.defaultHome(env), ...logins.map((login) => login.home));
  }
  return [...new Set(homes)].filter((home) => path.resolve(home) !== path.resolve(account.home));
}
