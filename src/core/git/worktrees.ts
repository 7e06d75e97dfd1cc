import fs from "node:fs/promises";
import path from "node:path";
import { OffrunError, isOffrunError } from "../foundation/errors.js";
import type { ProjectConfig } from "../foundation/model.js";
import { validateAgentName } from "../foundation/names.js";
import { projectPaths } from "../foundation/paths.js";
import { makePrivateDir, PRIVATE_FILE_MODE } from "../foundation/private-files.js";
import { runCommand } from "../foundation/process.js";
import { withRepoLock } from "./lock.js";
import { readHeadAndBranches } from "./discover.js";
import { addExcludes, cleanEnv, ensureExcludes, git, resolveCommit } from "./repo.js";
import { isInsideReal } from "../foundation/inside.js";
import { injectFault } from "../foundation/fault-points.js";

// Diffing, merging and discarding moved to their own modules; re-exported so older imports keep working.
export { diffWorktree, type ChangedFile, type WorktreeDiff } from "./diff.js";
export {
  agentCommitMessage,
  commitAgentWork,
  identityArgs,
  mergeAgent,
  type MergeRequest,
  type MergeResult,
} from "./merge.js";
export { discardWorktree, type DiscardRequest, type DiscardResult } from "./discard.js";

export interface CreateWorktreeRequest {
  root: string;
  agent: string;
  /** Where to start: a branch or commit, or HEAD of the main checkout when absent; or that, already resolved. */
  base?: string | StartPoint;
  config: Pick<ProjectConfig, "branchPrefix" | "copyFiles" | "setup" | "setupTimeoutSeconds">;
  port: number;
  logFile: string;
}

export interface CreatedWorktree {
  path: string;
  branch: string;
  baseCommit: string;
  /** What the user named, or the branch HEAD was on; undefined for a detached HEAD. */
  baseRef?: string;
}

/**
 * A new worktree at .worktrees/<agent> on a new branch <prefix><agent>, with the configured
 * files copied in and setup commands run. A failing setup leaves the worktree for inspection.
 */
export async function createWorktree(request: CreateWorktreeRequest): Promise<CreatedWorktree> {
  const { root, agent, config } = request;
  validateAgentName(agent);
  const branch = `${config.branchPrefix}${agent}`;
  const worktree = projectPaths(root).worktree(agent);
  const copies = config.copyFiles.map((file) => insideProject(root, file)); // refuse before creating anything
  const created = await withRepoLock(root, async () => {
    // On the way to every agent's first turn, so one git question before the checkout, not four:
    // the base commit (with the branch HEAD is on), while the folder and the excludes are checked.
    const [base, folderTaken] = await Promise.all([
      typeof request.base === "object" ? request.base : resolveStartPoint(root, request.base),
      exists(worktree),
      ensureExcludes(root),
    ]);
    if (folderTaken) {
      throw new OffrunError(
        "invalid_input",
        `${worktree} already exists. Pick another agent name, or remove that folder.`,
      );
    }
    try {
      await git(root, ["worktree", "add", "--no-track", "-b", branch, "--", worktree, base.commit]);
    } catch (error) {
      // git refuses a bad or taken branch name before it creates anything: say which, plainly.
      // Only then: a checkout that failed later (a full disk) leaves the branch it made, its own.
      if (refusedBranch(error)) await explainRefusedBranch(root, branch);
      throw error;
    }
    injectFault("worktree", worktree);
    return {
      path: worktree,
      branch,
      baseCommit: base.commit,
      ...(base.ref === undefined ? {} : { baseRef: base.ref }),
    };
  });
  await makePrivateDir(path.dirname(request.logFile));
  await copyConfiguredFiles(root, worktree, copies, request.logFile);
  await runSetup(worktree, config, request.port, request.logFile);
  return created;
}

/** The commit a new worktree starts from, and the name the user gave or the branch HEAD is on (none when detached). */
export interface StartPoint {
  commit: string;
  ref?: string;
}

/**
 * Resolves `base` (HEAD when absent) to the commit to start from; a name that is no branch or
 * commit is refused, saying how to find one. A start asks this before it writes anything.
 */
export async function resolveStartPoint(root: string, base: string | undefined): Promise<StartPoint> {
  if (base !== undefined) {
    const commit = await resolveCommit(root, base);
    if (commit === undefined) {
      throw new OffrunError(
        "invalid_input",
        `Base '${base}' is not a branch or commit in ${root}. Check the name with \`git branch -a\`.`,
      );
    }
    return { commit, ref: base };
  }
  // One process for both: the sha, then the branch name ("HEAD" when detached).
  return headStartPoint(root, (await git(root, ["rev-parse", "HEAD^{commit}", "--abbrev-ref", "HEAD"])).stdout);
}

/** The start point in the first two lines of `git rev-parse HEAD^{commit} --abbrev-ref HEAD …`. */
function headStartPoint(root: string, output: string): StartPoint {
  const [commit, ref] = output.trim().split("\n");
  if (!commit) throw new OffrunError("git", `git rev-parse gave no commit for HEAD in ${root}.`);
  return { commit, ...(ref && ref !== "HEAD" ? { ref } : {}) };
}

/** git's words (LC_ALL=C) for a new branch it refused: "a branch named 'x' already exists", "'x' is not a valid branch name". */
function refusedBranch(error: unknown): boolean {
  const details = error instanceof OffrunError ? (error.details ?? "") : "";
  const text = `${error instanceof Error ? error.message : String(error)}\n${details}`;
  return /a branch named '.*' already exists|is not a valid branch name/.test(text);
}

/** After git refused the new branch: a clear error when the branch name is invalid or taken. */
async function explainRefusedBranch(root: string, branch: string): Promise<void> {
  const format = await git(root, ["check-ref-format", `refs/heads/${branch}`], { okExitCodes: [1] });
  if (format.exitCode !== 0) {
    throw new OffrunError(
      "invalid_input",
      `'${branch}' is not a valid git branch name. Check branchPrefix in .offrun/config.json.`,
    );
  }
  await refuseTakenBranch(root, branch);
}

/** Refuses a new agent's branch that already exists: it is someone's, and never this agent's to take. */
async function refuseTakenBranch(root: string, branch: string): Promise<void> {
  const taken = await git(root, ["show-ref", "--verify", "--quiet", `refs/heads/${branch}`], { okExitCodes: [1] });
  if (taken.exitCode === 0) throw new BranchTakenError(branch);
}

/** A new agent's branch that exists already: someone's, so nothing an undo of the start may delete. */
export class BranchTakenError extends OffrunError {
  constructor(readonly branch: string) {
    super(
      "invalid_input",
      `Branch ${branch} already exists, and may hold someone's unmerged work: start the agent under another name (\`--name\`), or look at what the branch holds first (\`git log --oneline -5 ${branch}\`).`,
    );
  }
}

/** What a start learns from git before it writes anything (lookBeforeStart). */
export interface StartGround {
  start: StartPoint;
  /** The agent names whose branch (`<prefix><name>`) exists already. */
  takenNames: ReadonlySet<string>;
}

/**
 * What a start learns from git before it writes anything: the commit to start from (with the
 * branch HEAD is on), and the names whose branch exists, so that it names its agent clear of them
 * and refuses one it was given. From HEAD, it is read from git's files in a plain repository
 * (discover.ts), else asked of git in one process. A branch git leaves out of the list
 * (its short name is a tag's too) is still refused, by `git worktree add` (BranchTakenError).
 */
export async function lookBeforeStart(root: string, base: string | undefined, prefix: string): Promise<StartGround> {
  const names = (branches: string[]) => {
    const taken = new Set<string>();
    for (const branch of branches) if (branch.startsWith(prefix)) taken.add(branch.slice(prefix.length));
    return taken;
  };
  if (base !== undefined) {
    const [start, listed] = await Promise.all([
      resolveStartPoint(root, base),
      git(root, ["rev-parse", "--abbrev-ref", "--branches"]),
    ]);
    return { start, takenNames: names(listed.stdout.split("\n")) };
  }
  // Read from git's files where they are plain (discover.ts); else git is asked.
  const read = await readHeadAndBranches(root, prefix);
  if (read) return { start: { commit: read.commit, ref: read.branch }, takenNames: names(read.branches) };
  // HEAD's sha; then, in --abbrev-ref mode (it stays on), the branch HEAD is on ("HEAD" when
  // detached) and every branch by its short name.
  const asked = await git(root, ["rev-parse", "HEAD^{commit}", "--abbrev-ref", "HEAD", "--branches"]);
  return { start: headStartPoint(root, asked.stdout), takenNames: names(asked.stdout.trim().split("\n").slice(2)) };
}

async function exists(file: string): Promise<boolean> {
  return fs.access(file).then(
    () => true,
    () => false,
  );
}

async function appendLog(logFile: string, text: string): Promise<void> {
  await fs.appendFile(logFile, text.endsWith("\n") ? text : `${text}\n`, { mode: PRIVATE_FILE_MODE });
}

/** `file` relative to the project root; throws when it points outside it. */
function insideProject(root: string, file: string): string {
  const relative = path.relative(root, path.resolve(root, file));
  if (
    path.isAbsolute(file) ||
    relative === "" ||
    relative === ".." ||
    relative.startsWith(`..${path.sep}`) ||
    path.isAbsolute(relative)
  ) {
    throw new OffrunError(
      "invalid_input",
      `copyFiles entry '${file}' is outside the project. List paths relative to ${root}.`,
    );
  }
  return relative;
}

/** Copies untracked files the agent needs (.env and the like) from the main checkout. */
async function copyConfiguredFiles(root: string, worktree: string, files: string[], logFile: string): Promise<void> {
  for (const relative of files) {
    const source = path.join(root, relative);
    if (!(await exists(source))) {
      await appendLog(logFile, `[offrun] copyFiles: ${relative} does not exist in ${root}; skipped.`);
      continue;
    }
    const real = await fs.realpath(source);
    if (!(await isInsideReal(root, real))) {
      await appendLog(logFile, `[offrun] copyFiles: ${relative} is a link to ${real}, outside ${root}; not copied.`);
      continue;
    }
    const target = path.join(worktree, relative);
    await fs.mkdir(path.dirname(target), { recursive: true });
    // A link inside a copied folder that leads out of the repository is left out: the agent
    // would read through it what the repository chose (~/.ssh).
    const leadsOut = async (from: string) => !(await isInsideReal(root, await fs.realpath(from).catch(() => from)));
    await fs.cp(real, target, { recursive: true, force: true, filter: async (from) => !(await leadsOut(from)) });
    await appendLog(logFile, `[offrun] copyFiles: copied ${relative}`);
    await keepOutOfCommits(root, worktree, relative, logFile);
  }
}

/**
 * A copied file that git neither tracks nor ignores (an .env missing from .gitignore) would be
 * committed by `git add -A` at merge time, secrets and all: exclude it for every worktree.
 */
async function keepOutOfCommits(root: string, worktree: string, relative: string, logFile: string): Promise<void> {
  const gitPath = relative.split(path.sep).join("/");
  const tracked = await git(worktree, ["ls-files", "--error-unmatch", "--", gitPath], { okExitCodes: [1] });
  const ignored = await git(worktree, ["check-ignore", "-q", "--", gitPath], { okExitCodes: [1] });
  if (tracked.exitCode === 0 || ignored.exitCode === 0) return;
  const added = await withRepoLock(root, () =>
    addExcludes(root, [`/${gitPath}`], "Offrun: copied into agent worktrees, never committed"),
  );
  if (added)
    await appendLog(
      logFile,
      `[offrun] copyFiles: ${relative} was not ignored by git; added /${gitPath} to info/exclude so agents never commit it.`,
    );
}

/** Runs each setup command in the worktree; its output goes to the log, a failure names the command. */
async function runSetup(
  worktree: string,
  config: CreateWorktreeRequest["config"],
  port: number,
  logFile: string,
): Promise<void> {
  for (const argv of config.setup) {
    const [file, ...args] = argv;
    if (file === undefined) continue;
    const shown = argv.join(" ");
    await appendLog(logFile, `[offrun] setup: $ ${shown}`);
    const env = cleanEnv({ OFFRUN_PORT: String(port), PORT: String(port) });
    let result;
    try {
      result = await runCommand({ file, args, cwd: worktree, env }, { timeoutMs: config.setupTimeoutSeconds * 1000 });
    } catch (error) {
      const reason = isOffrunError(error, "not_installed") ? `${file} was not found` : String(error);
      await appendLog(logFile, `[offrun] setup: ${reason}`);
      throw new OffrunError(
        "process_failed",
        `Setup command \`${shown}\` could not start: ${reason}. The worktree is kept at ${worktree}; see ${logFile}.`,
        { cause: error },
      );
    }
    const output = result.stdout + result.stderr;
    if (output !== "") await appendLog(logFile, output);
    await appendLog(
      logFile,
      `[offrun] setup: exit code ${result.exitCode ?? "none"}${result.timedOut ? " (timed out)" : ""}`,
    );
    if (result.timedOut) {
      throw new OffrunError(
        "timed_out",
        `Setup command \`${shown}\` took longer than ${config.setupTimeoutSeconds}s and was stopped. The worktree is kept at ${worktree}; its output is in ${logFile}. Raise setupTimeoutSeconds in .offrun/config.json if it needs longer.`,
      );
    }
    if (result.exitCode !== 0) {
      throw new OffrunError(
        "process_failed",
        `Setup command \`${shown}\` failed with exit code ${result.exitCode ?? "none"}. Its output is in ${logFile}; the worktree is kept at ${worktree}.`,
        { details: output.slice(-4000) },
      );
    }
  }
}
