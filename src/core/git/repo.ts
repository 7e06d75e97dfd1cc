import fs from "node:fs/promises";
import path from "node:path";
import { OffrunError } from "../foundation/errors.js";
import { discoverCheckout } from "./discover.js";
import { quarantineAlternate } from "./quarantine-path.js";
import type { runCommand, RunResult } from "../foundation/process.js";
import { withFileLock } from "../foundation/store.js";

export interface GitOptions {
  /** Extra environment for this call (e.g. GIT_INDEX_FILE). */
  env?: Record<string, string>;
  /** Exit codes that are answers, not failures (e.g. 1 for `diff --quiet`). */
  okExitCodes?: number[];
  timeoutMs?: number;
  maxBuffer?: number;
  /** Ends git when a view no longer needs the answer (the Agents view's next poll, a closed view). */
  signal?: AbortSignal;
  /** What git reads on stdin (a patch for `apply -`). */
  input?: string;
}

// Set by git for hooks; inherited (e.g. tests run from a pre-commit hook) they would point
// every call at the wrong repository or index.
const INHERITED_GIT_VARS = ["GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_PREFIX", "GIT_COMMON_DIR"];

/** The environment for git and for setup commands: ours, minus hook-scoped git variables. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of INHERITED_GIT_VARS) delete env[name];
  return { ...env, ...extra };
}

/** Offrun's worktrees are `<project>/.worktrees/<agent>` (paths.ts). */
const WORKTREES_PART = `${path.sep}.worktrees${path.sep}`;

/** The process runner (and execa) loads with the first git call: `ls` and `show` in a plain checkout make none. */
const run: typeof runCommand = async (...args) => (await import("../foundation/process.js")).runCommand(...args);

/**
 * What every git call of Offrun's runs with: no fsmonitor and no hooks. A repository's config or
 * hooks can name a command (`core.fsmonitor`, a `post-checkout` hook) that git runs at a mere
 * `status`: Offrun's own calls (diffs for a view, the merge, the Planner check) never run one,
 * whoever wrote it there.
 */
export const NEUTRAL_GIT = ["-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null"] as const;

/** Runs git with an argv array; throws OffrunError("git") with git's own words on failure. */
export async function git(cwd: string, args: string[], options: GitOptions = {}): Promise<RunResult> {
  // In an agent's worktree while a sandboxed turn runs, its new objects are still in quarantine.
  const quarantined = cwd.includes(WORKTREES_PART) ? await quarantineAlternate(cwd) : undefined;
  const env = cleanEnv({ GIT_TERMINAL_PROMPT: "0", LC_ALL: "C", ...quarantined, ...options.env });
  const result = await run(
    { file: "git", args: [...NEUTRAL_GIT, ...args], cwd, env },
    {
      timeoutMs: options.timeoutMs ?? 120_000,
      maxBuffer: options.maxBuffer,
      signal: options.signal,
      ...(options.input === undefined ? {} : { input: options.input }),
    },
  );
  // A cancelled git says why it failed as an AbortError, not as git's own words about a killed process.
  options.signal?.throwIfAborted();
  const ok =
    result.exitCode === 0 || (result.exitCode !== undefined && (options.okExitCodes ?? []).includes(result.exitCode));
  if (!ok) {
    const said = result.stderr.trim() || result.stdout.trim() || (result.timedOut ? "timed out" : "no output");
    throw new OffrunError("git", `git ${args[0] ?? ""} failed in ${cwd}: ${lastLines(said, 3)}`, {
      details: `git ${args.join(" ")}\nexit code: ${result.exitCode}\n${said}`,
    });
  }
  return result;
}

function lastLines(text: string, count: number): string {
  return text.split("\n").slice(-count).join("\n");
}

async function requireFolder(dir: string): Promise<void> {
  const stat = await fs.stat(dir).catch(() => undefined);
  if (!stat?.isDirectory()) throw new OffrunError("not_found", `${dir} does not exist or is not a folder.`);
}

/**
 * The top level of the main checkout, also when `dir` is inside a linked worktree (an agent's
 * own worktree resolves to the project that owns it).
 */
export async function findRepoRoot(dir: string): Promise<string> {
  const absolute = path.resolve(dir);
  await requireFolder(absolute);
  const found = await discoverCheckout(absolute);
  if (found === "outside") throw notInRepository(absolute);
  if (found !== "ask-git") return found.root;
  // One git call on the usual path: the common dir (shared by all worktrees), bareness and HEAD.
  const probe = await run(
    {
      file: "git",
      args: [...NEUTRAL_GIT, "rev-parse", "--path-format=absolute", "--git-common-dir", "--is-bare-repository", "HEAD"],
      cwd: absolute,
      env: cleanEnv({ LC_ALL: "C" }),
    },
    { timeoutMs: 30_000 },
  );
  const [commonDir, bare] = probe.stdout.split("\n");
  if (probe.exitCode === 0 && bare === "false" && commonDir && path.basename(commonDir) === ".git") {
    return fs.realpath(path.dirname(commonDir));
  }
  return findRepoRootSlowly(absolute, probe);
}

const notInRepository = (dir: string) =>
  new OffrunError(
    "invalid_input",
    `${dir} is not inside a git repository. Run \`git init\` there or pass --project DIR.`,
  );

/** Unusual layouts (a separate git dir, a submodule) and every error case, with a clear message for each. */
async function findRepoRootSlowly(absolute: string, probe: RunResult): Promise<string> {
  if (probe.exitCode !== 0 && /not a git repository/i.test(probe.stderr)) throw notInRepository(absolute);
  await git(absolute, ["rev-parse", "--git-dir"]); // throws with git's own message
  // The first entry of `worktree list` is always the main working tree.
  const listing = await git(absolute, ["worktree", "list", "--porcelain"]);
  const lines = listing.stdout.split("\n");
  const first = lines[0] ?? "";
  if (!first.startsWith("worktree ") || lines[1] === "bare") {
    throw new OffrunError("invalid_input", `${absolute} is in a bare repository. Offrun needs a checkout to work in.`);
  }
  const root = first.slice("worktree ".length);
  const head = await git(root, ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], { okExitCodes: [1] });
  if (head.exitCode !== 0) {
    throw new OffrunError(
      "invalid_input",
      `${root} has no commits yet, so there is nothing to branch agents from. Make a first commit (for example \`git commit --allow-empty -m init\`).`,
    );
  }
  return root;
}

/** The shared git directory of a repository and all its worktrees, absolute and resolved. */
export async function gitCommonDir(root: string): Promise<string> {
  const known = commonDirs.get(root);
  if (known) return known;
  const result = await git(root, ["rev-parse", "--path-format=absolute", "--git-common-dir"]);
  const resolved = await fs.realpath(result.stdout.trim());
  commonDirs.set(root, resolved);
  return resolved;
}
/** A repository's common dir does not move while it exists; asked on every git write, so remembered. */
const commonDirs = new Map<string, string>();

/** The branch checked out at `root`; undefined on a detached HEAD. */
export async function currentBranch(root: string): Promise<string | undefined> {
  const result = await git(root, ["symbolic-ref", "--quiet", "--short", "HEAD"], { okExitCodes: [1] });
  return result.exitCode === 0 ? result.stdout.trim() : undefined;
}

/** The full sha of HEAD at `root`. */
export async function headCommit(root: string): Promise<string> {
  return (await git(root, ["rev-parse", "--verify", "HEAD^{commit}"])).stdout.trim();
}

/** The commit a branch name or commit-ish resolves to; undefined when it does not resolve. */
export async function resolveCommit(root: string, ref: string): Promise<string | undefined> {
  if (ref.startsWith("-")) return undefined; // would read as an option
  const result = await git(root, ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`], { okExitCodes: [1, 128] });
  return result.exitCode === 0 ? result.stdout.trim() : undefined;
}

export interface DirtyOptions {
  /** Leave out `.offrun/` and `.worktrees/` entries (Offrun's own files in the main checkout). */
  ignoreOffrun?: boolean;
  /** Count untracked files too (default true). */
  includeUntracked?: boolean;
}

const OFFRUN_PREFIXES = [".offrun/", ".worktrees/"];

/** Paths with uncommitted changes (staged, unstaged and, unless told otherwise, untracked). */
export async function dirtyFiles(dir: string, options: DirtyOptions = {}): Promise<string[]> {
  const untracked = options.includeUntracked === false ? "no" : "all";
  // --no-optional-locks: a status must not take index.lock while another git call writes.
  const result = await git(dir, [
    "--no-optional-locks",
    "status",
    "--porcelain=v1",
    "-z",
    `--untracked-files=${untracked}`,
  ]);
  const tokens = result.stdout.split("\0");
  const files: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const entry = tokens[i] ?? "";
    if (entry.length < 4) continue;
    const code = entry.slice(0, 2);
    files.push(entry.slice(3));
    if (code.includes("R") || code.includes("C")) i++; // the next token is the rename's source
  }
  if (!options.ignoreOffrun) return files;
  return files.filter(
    (file) => !OFFRUN_PREFIXES.some((prefix) => file === prefix.slice(0, -1) || file.startsWith(prefix)),
  );
}

/** True when `dir` has uncommitted changes; see `dirtyFiles`. */
export async function isDirty(dir: string, options: DirtyOptions = {}): Promise<boolean> {
  return (await dirtyFiles(dir, options)).length > 0;
}

export const EXCLUDE_LINES = [".worktrees/", ".offrun/chats/", ".offrun/agents/"] as const;

/**
 * Adds Offrun's private folders to the repository's info/exclude (shared by all worktrees),
 * never to the user's .gitignore. Idempotent; an atomic rewrite keeps concurrent callers from
 * tearing the file, and they all write the same lines.
 */
export async function ensureExcludes(root: string): Promise<void> {
  await addExcludes(root, [...EXCLUDE_LINES], "Offrun: agent worktrees and private state");
}

/**
 * Appends the missing `lines` to info/exclude under a comment; true when something was added.
 * The write is a read-change-write under the file's lock: two callers with different lines (a new
 * agent's worktree and its memory snapshots, started together) each rewrote the file from what
 * they had read, and the last one dropped the other's lines (seen in CI: `.worktrees/` and
 * `.offrun/agents/` showed up in `git status`).
 */
export async function addExcludes(root: string, lines: string[], comment: string): Promise<boolean> {
  const excludeFile = path.join(await gitCommonDir(root), "info", "exclude");
  const missingFrom = (current: string) => {
    const present = new Set(current.split(/\r?\n/).map((line) => line.trim()));
    return lines.filter((line) => !present.has(line));
  };
  // Most calls find every line there already: no lock, no write.
  if (missingFrom(await readExcludes(excludeFile)).length === 0) return false;
  return withFileLock(excludeFile, async () => {
    const current = await readExcludes(excludeFile);
    const missing = missingFrom(current);
    if (missing.length === 0) return false;
    const separator = current === "" || current.endsWith("\n") ? "" : "\n";
    const { default: writeFileAtomic } = await import("write-file-atomic");
    await writeFileAtomic(excludeFile, `${current}${separator}# ${comment}\n${missing.join("\n")}\n`);
    return true;
  });
}

async function readExcludes(file: string): Promise<string> {
  return fs.readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return "";
    throw error;
  });
}
