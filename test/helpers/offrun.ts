import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { execa } from "execa";
import { isAlive } from "../../src/core/foundation/pids.js";

export const PROJECT_ROOT = path.resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "..", "..");
export const OFFRUN_BIN = path.join(PROJECT_ROOT, "bin", "offrun.js");

/** A fresh sandbox: every test gets its own HOME, TMPDIR and OFFRUN_HOME. */
export interface Sandbox {
  dir: string;
  home: string;
  tmp: string;
  offrunHome: string;
  /** The base environment for processes of this test (no variable of the real user's leaks in). */
  env: NodeJS.ProcessEnv;
  cleanup(): Promise<void>;
}

/**
 * For tests that run the core in this process (a Supervisor of their own): it reads HOME, TMPDIR,
 * OFFRUN_HOME and git's settings from process.env, so they point into the sandbox.
 */
export function useSandboxInProcess(box: Sandbox): void {
  Object.assign(process.env, {
    HOME: box.home,
    TMPDIR: box.tmp,
    OFFRUN_HOME: box.offrunHome,
    GIT_CONFIG_GLOBAL: box.env.GIT_CONFIG_GLOBAL,
    GIT_CONFIG_NOSYSTEM: "1",
  });
}

export async function makeSandbox(prefix = "offrun-test-"): Promise<Sandbox> {
  // Short paths: the companion's Unix socket path must stay under ~104 bytes on macOS.
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  const home = path.join(dir, "home");
  const tmp = path.join(dir, "tmp");
  const offrunHome = path.join(dir, "oh");
  await Promise.all([home, tmp, offrunHome].map((d) => fs.mkdir(d, { recursive: true })));
  const gitConfig = path.join(home, ".gitconfig");
  await fs.writeFile(
    gitConfig,
    "[user]\n\tname = Offrun Test\n\temail = test@offrun.invalid\n[init]\n\tdefaultBranch = main\n",
  );
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    TMPDIR: tmp,
    OFFRUN_HOME: offrunHome,
    GIT_CONFIG_GLOBAL: gitConfig,
    GIT_CONFIG_NOSYSTEM: "1",
    LANG: "C.UTF-8",
  };
  return {
    dir,
    home,
    tmp,
    offrunHome,
    env,
    cleanup: async () => {
      await runOffrun(["companion", "stop"], { env }).catch(() => undefined);
      await stopStrayCompanions(dir);
      await fs.rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    },
  };
}

/**
 * Tests that give each case its own OFFRUN_HOME inside the sandbox start a companion in each:
 * end every one whose pid file is under `dir`, so no test leaves a companion running.
 */
async function stopStrayCompanions(dir: string): Promise<void> {
  const entries = await fs.readdir(dir, { recursive: true }).catch(() => [] as string[]);
  for (const entry of entries) {
    if (path.basename(entry) !== "companion.pid") continue;
    const pid = Number((await fs.readFile(path.join(dir, entry), "utf8").catch(() => "")).trim());
    if (!Number.isInteger(pid) || pid <= 0) continue;
    try {
      process.kill(pid, "SIGTERM");
    } catch {
      continue; // already gone
    }
    // It writes its log and removes its socket on the way out: wait, so the folder can go after.
    for (let i = 0; i < 100 && isAlive(pid); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Makes a git repository with one commit. */
export async function makeRepo(
  dir: string,
  env: NodeJS.ProcessEnv,
  files: Record<string, string> = { "README.md": "# demo\n" },
): Promise<string> {
  await fs.mkdir(dir, { recursive: true });
  for (const [name, content] of Object.entries(files)) {
    await fs.mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await fs.writeFile(path.join(dir, name), content);
  }
  await git(dir, env, ["init", "-q", "-b", "main"]);
  await git(dir, env, ["add", "-A"]);
  await git(dir, env, ["commit", "-q", "-m", "initial"]);
  return dir;
}

export async function git(cwd: string, env: NodeJS.ProcessEnv, args: string[]): Promise<string> {
  const result = await execa("git", args, { cwd, env, extendEnv: false, timeout: 60_000 });
  return String(result.stdout);
}

export interface OffrunResult {
  exitCode: number | undefined;
  stdout: string;
  stderr: string;
  /** The run's OFFRUN_HOME, for `toSucceed` to show the companion's log when it failed. */
  offrunHome?: string;
}

interface OffrunOptions {
  env: NodeJS.ProcessEnv;
  cwd?: string;
  timeoutMs?: number;
}

/** The built `offrun` CLI, started as a user would: only the given environment, no input. */
function offrunProcess(args: string[], options: OffrunOptions) {
  return execa(process.execPath, [OFFRUN_BIN, ...args], {
    cwd: options.cwd,
    env: options.env,
    extendEnv: false,
    stdin: "ignore",
    reject: false,
    timeout: options.timeoutMs ?? 120_000,
  });
}

/** Runs the built `offrun` CLI as a user would. */
export async function runOffrun(args: string[], options: OffrunOptions): Promise<OffrunResult> {
  const result = await offrunProcess(args, options);
  return {
    exitCode: result.exitCode,
    stdout: String(result.stdout),
    stderr: String(result.stderr),
    ...(options.env.OFFRUN_HOME ? { offrunHome: options.env.OFFRUN_HOME } : {}),
  };
}

/** A long-running `offrun` (watch, say), started as a user would, with what it has printed so far. */
export interface RunningOffrun {
  output: { stdout: string; stderr: string };
  /** Ends it (SIGTERM unless told) and waits for it to exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export function startOffrun(args: string[], options: OffrunOptions): RunningOffrun {
  const child = offrunProcess(args, options);
  const output = { stdout: "", stderr: "" };
  child.stdout.on("data", (chunk: Buffer) => (output.stdout += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (output.stderr += chunk.toString("utf8")));
  return {
    output,
    stop: async (signal = "SIGTERM") => {
      child.kill(signal);
      await child;
    },
  };
}

/** Waits until `assertion` passes: `eventually` for an expectation (a timeout says what it last threw). */
export function holds(assertion: () => unknown, timeoutMs = 10_000): Promise<true> {
  return eventually(async () => {
    await assertion();
    return true as const;
  }, timeoutMs);
}

/** Polls until `check` returns a value (or the deadline passes). */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  timeoutMs = 30_000,
  what = "condition",
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  // What the check last threw: a timeout says it, so a failure in CI reads without a rerun.
  let lastError: unknown;
  for (;;) {
    const value = await check().catch((error: unknown) => {
      lastError = error;
      return undefined;
    });
    if (value !== undefined) return value;
    if (Date.now() > deadline) {
      const last =
        lastError === undefined ? "" : `; the check last threw: ${String((lastError as Error)?.message ?? lastError)}`;
      throw new Error(`timed out waiting for ${what}${last}`, { cause: lastError });
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
