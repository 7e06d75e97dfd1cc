import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { execa } from "execa";
import { isOffrunError, type OffrunError } from "../../src/core/foundation/errors.js";
import { withRepoLock } from "../../src/core/git/lock.js";
import {
  addExcludes,
  currentBranch,
  ensureExcludes,
  findRepoRoot,
  git,
  headCommit,
  isDirty,
} from "../../src/core/git/repo.js";
import { diffWorktree } from "../../src/core/git/diff.js";
import { discardWorktree } from "../../src/core/git/discard.js";
import { commitAgentWork, mergeAgent } from "../../src/core/git/merge.js";
import { createWorktree, lookBeforeStart, type CreateWorktreeRequest } from "../../src/core/git/worktrees.js";
import { projectConfigSchema, type ProjectConfig } from "../../src/core/foundation/model.js";
import { projectPaths } from "../../src/core/foundation/paths.js";
import { allocatePort } from "../../src/core/foundation/ports.js";

const savedEnv = { ...process.env };
let sandbox: string;

beforeAll(async () => {
  sandbox = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "offrun-worktrees-")));
  for (const dir of ["home", "tmp", "offrun"]) await fs.mkdir(path.join(sandbox, dir));
  await fs.writeFile(path.join(sandbox, "gitconfig"), "");
  Object.assign(process.env, {
    HOME: path.join(sandbox, "home"),
    TMPDIR: path.join(sandbox, "tmp"),
    OFFRUN_HOME: path.join(sandbox, "offrun"),
    GIT_CONFIG_GLOBAL: path.join(sandbox, "gitconfig"),
    GIT_CONFIG_NOSYSTEM: "1",
  });
});

afterAll(async () => {
  process.env = savedEnv;
  await fs.rm(sandbox, { recursive: true, force: true });
});

async function gitOut(cwd: string, ...args: string[]): Promise<string> {
  return (await git(cwd, args)).stdout.trim();
}

let repoCount = 0;
/** A repository on `main` with one commit, and an identity only when asked. */
async function makeRepo(options: { identity?: boolean } = {}): Promise<string> {
  const root = path.join(sandbox, `repo-${++repoCount}`);
  await fs.mkdir(root);
  await git(root, ["init", "-q", "-b", "main"]);
  if (options.identity !== false) {
    await git(root, ["config", "user.name", "Test User"]);
    await git(root, ["config", "user.email", "test@example.com"]);
  }
  await fs.writeFile(path.join(root, "README.md"), "# Project\n\nline two\n");
  await git(root, ["add", "-A"]);
  await git(root, ["-c", "user.name=Seed", "-c", "user.email=seed@example.com", "commit", "-q", "-m", "initial"]);
  return root;
}

function config(overrides: Partial<ProjectConfig> = {}): ProjectConfig {
  return projectConfigSchema.parse(overrides);
}

function request(root: string, agent: string, extra: Partial<CreateWorktreeRequest> = {}): CreateWorktreeRequest {
  return { root, agent, config: config(), port: 41234, logFile: projectPaths(root).log(agent), ...extra };
}

async function rejection(promise: Promise<unknown>): Promise<OffrunError> {
  try {
    await promise;
  } catch (error) {
    if (isOffrunError(error)) return error;
    throw error;
  }
  throw new Error("expected the call to fail");
}

describe("createWorktree", () => {
  test("it creates a worktree on offrun/<agent> from HEAD, copies files and runs setup with OFFRUN_PORT", async () => {
    const root = await makeRepo();
    await fs.writeFile(path.join(root, ".env"), "SECRET=1\n");
    const setup = [["node", "-e", "console.log('setup sees port ' + process.env.OFFRUN_PORT)"]];
    const created = await createWorktree(
      request(root, "fix-login", { config: config({ copyFiles: [".env", "missing.txt"], setup }), port: 41999 }),
    );

    expect(created).toEqual({
      path: path.join(root, ".worktrees", "fix-login"),
      branch: "offrun/fix-login",
      baseCommit: await headCommit(root),
      baseRef: "main",
    });
    expect(await currentBranch(created.path)).toBe("offrun/fix-login");
    expect(await headCommit(created.path)).toBe(created.baseCommit);
    expect(await fs.readFile(path.join(created.path, ".env"), "utf8")).toBe("SECRET=1\n");
    const log = await fs.readFile(projectPaths(root).log("fix-login"), "utf8");
    expect(log).toContain("setup sees port 41999");
    expect(log).toMatch(/missing\.txt does not exist/);
    expect(await gitOut(root, "status", "--porcelain")).toBe(""); // .worktrees/ and the copied .env are excluded
    expect(await gitOut(created.path, "status", "--porcelain")).toBe("");
  });

  test("it starts from a named base branch and records it", async () => {
    const root = await makeRepo();
    await git(root, ["switch", "-q", "-c", "feature"]);
    await fs.writeFile(path.join(root, "feature.txt"), "f\n");
    await git(root, ["add", "-A"]);
    await git(root, ["commit", "-q", "-m", "feature"]);
    const featureSha = await headCommit(root);
    await git(root, ["switch", "-q", "main"]);

    const created = await createWorktree({ ...request(root, "on-feature"), base: "feature" });
    expect(created.baseCommit).toBe(featureSha);
    expect(created.baseRef).toBe("feature");
  });

  test("a base that does not exist is refused with its name", async () => {
    const root = await makeRepo();
    const error = await rejection(createWorktree({ ...request(root, "nobase"), base: "no-such-branch" }));
    expect(error.kind).toBe("invalid_input");
    expect(error.message).toContain("no-such-branch");
    expect(await gitOut(root, "branch", "--list", "offrun/*")).toBe("");
  });

  test("it refuses an existing branch or folder", async () => {
    const root = await makeRepo();
    await git(root, ["branch", "offrun/taken"]);
    expect((await rejection(createWorktree(request(root, "taken")))).message).toContain(
      "Branch offrun/taken already exists",
    );
    await fs.mkdir(path.join(root, ".worktrees", "folder"), { recursive: true });
    expect((await rejection(createWorktree(request(root, "folder")))).message).toContain("already exists");
  });

  test("a branch prefix git refuses is named as such, and nothing is created", async () => {
    const root = await makeRepo();
    const error = await rejection(
      createWorktree(request(root, "bad", { config: { ...config(), branchPrefix: "offrun..x/" } })),
    );
    expect(error.message).toContain("'offrun..x/bad' is not a valid git branch name");
    await expect(fs.access(path.join(root, ".worktrees", "bad"))).rejects.toThrow();
  });

  test("from a detached HEAD, the worktree starts at its commit and records no base branch", async () => {
    const root = await makeRepo();
    await git(root, ["switch", "-q", "--detach", "HEAD"]);
    const created = await createWorktree(request(root, "detached"));
    expect(created.baseCommit).toBe(await headCommit(root));
    expect(created.baseRef).toBeUndefined();
  });

  // A repository can commit a link that leads out of it; copied, the agent reads through it.
  test("copyFiles leaves out a link that leads out of the project, itself or inside a copied folder", async () => {
    const root = await makeRepo();
    const secret = path.join(path.dirname(root), "outside-secret.txt");
    await fs.writeFile(secret, "AWS_SECRET=1\n");
    await fs.symlink(secret, path.join(root, "creds.env"));
    await fs.mkdir(path.join(root, "conf"));
    await fs.writeFile(path.join(root, "conf", "app.env"), "PORT=1\n");
    await fs.symlink(secret, path.join(root, "conf", "linked.env"));
    const created = await createWorktree(
      request(root, "links", { config: config({ copyFiles: ["creds.env", "conf"] }) }),
    );
    await expect(fs.lstat(path.join(created.path, "creds.env"))).rejects.toThrow();
    expect(await fs.readFile(path.join(created.path, "conf", "app.env"), "utf8")).toBe("PORT=1\n");
    await expect(fs.lstat(path.join(created.path, "conf", "linked.env"))).rejects.toThrow();
    expect(await fs.readFile(projectPaths(root).log("links"), "utf8")).toContain(`creds.env is a link to ${secret}`);
  });

  test("copyFiles entries outside the project are refused before anything is created", async () => {
    const root = await makeRepo();
    const error = await rejection(
      createWorktree(request(root, "escape", { config: config({ copyFiles: ["../secret"] }) })),
    );
    expect(error.kind).toBe("invalid_input");
    await expect(fs.access(path.join(root, ".worktrees", "escape"))).rejects.toThrow();
  });

  test("a failing setup command names the command, exit code and log, and keeps the worktree", async () => {
    const root = await makeRepo();
    const setup = [["node", "-e", "console.error('boom'); process.exit(3)"]];
    const logFile = projectPaths(root).log("broken");
    const error = await rejection(createWorktree(request(root, "broken", { config: config({ setup }) })));
    expect(error.kind).toBe("process_failed");
    expect(error.message).toContain("node -e");
    expect(error.message).toContain("exit code 3");
    expect(error.message).toContain(logFile);
    expect(await fs.readFile(logFile, "utf8")).toContain("boom");
    await fs.access(path.join(root, ".worktrees", "broken"));
  });

  test("excludes are written once to info/exclude and never to .gitignore", async () => {
    const root = await makeRepo();
    await ensureExcludes(root);
    await createWorktree(request(root, "one"));
    await ensureExcludes(root);
    const exclude = await fs.readFile(path.join(root, ".git", "info", "exclude"), "utf8");
    for (const line of [".worktrees/", ".offrun/chats/", ".offrun/agents/"]) {
      expect(exclude.split("\n").filter((l) => l === line)).toHaveLength(1);
    }
    await expect(fs.access(path.join(root, ".gitignore"))).rejects.toThrow();
  });

  // Broke in CI (review.test.ts): a new agent's worktree and its memory snapshots added their
  // lines at once, each rewrote the file from what it had read, and `.worktrees/` was lost.
  test("excludes added at the same time with different lines all land", async () => {
    const root = await makeRepo();
    const lines = Array.from({ length: 8 }, (_, i) => `/copied-${i}.env`);
    await Promise.all([ensureExcludes(root), ...lines.map((line) => addExcludes(root, [line], "test"))]);
    const exclude = (await fs.readFile(path.join(root, ".git", "info", "exclude"), "utf8")).split("\n");
    for (const line of [".worktrees/", ".offrun/chats/", ".offrun/agents/", ...lines]) expect(exclude).toContain(line);
  });

  test("twenty concurrent creates all succeed with twenty distinct ports", async () => {
    const root = await makeRepo();
    const taken = new Set<number>();
    const names = Array.from({ length: 20 }, (_, i) => `agent-${i}`);
    const results = await Promise.all(
      names.map(async (agent) => {
        const port = await allocatePort({ root, agent, range: { from: 41000, to: 48999 }, taken });
        return { port, created: await createWorktree(request(root, agent, { port })) };
      }),
    );
    expect(new Set(results.map((r) => r.port)).size).toBe(20);
    const listed = (await gitOut(root, "worktree", "list", "--porcelain"))
      .split("\n")
      .filter((l) => l.startsWith("worktree "));
    expect(listed).toHaveLength(21);
  });

  test("the repository lock also waits for another process holding it", async () => {
    const root = await makeRepo();
    const commonDir = path.join(root, ".git");
    const marker = path.join(sandbox, `held-${Date.now()}`);
    const script = `import("proper-lockfile").then(async ({ default: lockfile }) => {
      const release = await lockfile.lock(${JSON.stringify(commonDir)}, { lockfilePath: ${JSON.stringify(path.join(commonDir, "offrun-git.lock"))} });
      require("node:fs").writeFileSync(${JSON.stringify(marker)}, "");
      setTimeout(() => release().then(() => process.exit(0)), 1500);
    });`;
    const holder = execa("node", ["-e", script], { cwd: process.cwd(), timeout: 30_000 });
    for (
      let i = 0;
      i < 200 &&
      !(await fs.access(marker).then(
        () => true,
        () => false,
      ));
      i++
    )
      await new Promise((r) => setTimeout(r, 25));
    const started = Date.now();
    await withRepoLock(root, async () => undefined);
    expect(Date.now() - started).toBeGreaterThan(800);
    await holder;
  });
});

describe("lookBeforeStart", () => {
  // What a start asks git in one process before it writes anything.
  test("it gives HEAD's commit and branch and the agent names whose branch is taken", async () => {
    const root = await makeRepo();
    for (const branch of ["offrun/fix", "offrun/deep/name", "feature", "offrunner"])
      await git(root, ["branch", branch]);
    const ground = await lookBeforeStart(root, undefined, "offrun/");
    expect(ground.start).toEqual({ commit: await headCommit(root), ref: "main" });
    expect([...ground.takenNames].sort()).toEqual(["deep/name", "fix"]);
    // A base given: its commit, the same names.
    await git(root, ["switch", "-q", "-c", "feature-2"]);
    await fs.writeFile(path.join(root, "more.txt"), "more\n");
    await git(root, ["add", "more.txt"]);
    await git(root, ["commit", "-q", "-m", "more"]);
    const based = await lookBeforeStart(root, "main", "offrun/");
    expect(based.start).toEqual({ commit: await gitOut(root, "rev-parse", "main"), ref: "main" });
    expect([...based.takenNames].sort()).toEqual(["deep/name", "fix"]);
    // Detached: no branch to record; a base that is nothing is refused before anything is written.
    await git(root, ["switch", "-q", "--detach", "HEAD"]);
    expect((await lookBeforeStart(root, undefined, "offrun/")).start).toEqual({ commit: await headCommit(root) });
    const error = await rejection(lookBeforeStart(root, "no-such-branch", "offrun/"));
    expect(error.message).toContain("Base 'no-such-branch' is not a branch or commit");
  });
});

describe("findRepoRoot", () => {
  test("a folder outside git is refused with what to do", async () => {
    const plain = path.join(sandbox, "plain");
    await fs.mkdir(plain, { recursive: true });
    const error = await rejection(findRepoRoot(plain));
    expect(error.kind).toBe("invalid_input");
    expect(error.message).toBe(
      `${plain} is not inside a git repository. Run \`git init\` there or pass --project DIR.`,
    );
  });

  test("a repository without commits is refused clearly", async () => {
    const empty = path.join(sandbox, "empty");
    await fs.mkdir(empty);
    await git(empty, ["init", "-q"]);
    expect((await rejection(findRepoRoot(empty))).message).toContain("has no commits yet");
  });

  test("inside an agent's worktree it answers the main checkout", async () => {
    const root = await makeRepo();
    const created = await createWorktree(request(root, "inner"));
    expect(await findRepoRoot(path.join(created.path))).toBe(root);
    expect(await findRepoRoot(root)).toBe(root);
  });
});

describe("diffWorktree", () => {
  test("it covers commits, uncommitted and untracked work without touching either index", async () => {
    const root = await makeRepo();
    const created = await createWorktree(request(root, "differ"));
    const wt = created.path;
    await fs.writeFile(path.join(wt, "committed.txt"), "a\nb\n");
    await git(wt, ["add", "-A"]);
    await git(wt, ["commit", "-q", "-m", "agent commit"]);
    await fs.writeFile(path.join(wt, "README.md"), "# Project\n\nline two changed\n");
    await fs.writeFile(path.join(wt, "untracked.txt"), "new\n");
    const statusBefore = await gitOut(wt, "status", "--porcelain");

    const diff = await diffWorktree({ worktree: wt, baseCommit: created.baseCommit });
    const byPath = new Map(diff.files.map((f) => [f.path, f]));
    expect(byPath.get("committed.txt")).toEqual({ path: "committed.txt", status: "added", additions: 2, deletions: 0 });
    expect(byPath.get("README.md")).toEqual({ path: "README.md", status: "modified", additions: 1, deletions: 1 });
    expect(byPath.get("untracked.txt")).toMatchObject({ status: "added", additions: 1 });
    expect(diff.patch).toContain("+new");
    expect(diff.patch).toContain("+++ b/untracked.txt");
    expect(await gitOut(wt, "status", "--porcelain")).toBe(statusBefore);
    expect(statusBefore).toContain("?? untracked.txt");
    expect(await gitOut(root, "status", "--porcelain")).toBe("");
  });

  test("it reports renames and deletions", async () => {
    const root = await makeRepo();
    await fs.writeFile(path.join(root, "long.txt"), "one\ntwo\nthree\nfour\nfive\n");
    await fs.writeFile(path.join(root, "gone.txt"), "bye\n");
    await git(root, ["add", "-A"]);
    await git(root, ["commit", "-q", "-m", "more"]);
    const created = await createWorktree(request(root, "mover"));
    await fs.rename(path.join(created.path, "long.txt"), path.join(created.path, "renamed.txt"));
    await fs.rm(path.join(created.path, "gone.txt"));
    const { files } = await diffWorktree({ worktree: created.path, baseCommit: created.baseCommit });
    expect(files).toContainEqual({
      path: "renamed.txt",
      status: "renamed",
      oldPath: "long.txt",
      additions: 0,
      deletions: 0,
    });
    expect(files).toContainEqual({ path: "gone.txt", status: "deleted", additions: 0, deletions: 1 });
  });
});

describe("commitAgentWork", () => {
  test("it returns undefined when there is nothing to commit", async () => {
    const root = await makeRepo();
    const created = await createWorktree(request(root, "idle"));
    expect(await commitAgentWork({ worktree: created.path, message: "nothing" })).toBeUndefined();
  });

  test("it falls back to an Offrun identity only when the repository has none", async () => {
    const root = await makeRepo({ identity: false });
    const created = await createWorktree(request(root, "anon"));
    await fs.writeFile(path.join(created.path, "x.txt"), "x\n");
    const sha = await commitAgentWork({ worktree: created.path, message: "work" });
    expect(await gitOut(root, "log", "-1", "--format=%an <%ae>", sha ?? "")).toBe("Offrun <offrun@localhost>");

    const named = await makeRepo();
    const other = await createWorktree(request(named, "named"));
    await fs.writeFile(path.join(other.path, "y.txt"), "y\n");
    await commitAgentWork({ worktree: other.path, message: "work" });
    expect(await gitOut(named, "log", "-1", "--format=%an", "offrun/named")).toBe("Test User");
  });
});

describe("mergeAgent", () => {
  const task = "Fix the login bug\nand explain why it happened";

  test("a clean merge brings the agent's work onto the main checkout's branch", async () => {
    const root = await makeRepo();
    const created = await createWorktree(request(root, "fix-login"));
    await fs.writeFile(path.join(created.path, "login.ts"), "export const fixed = true;\n");

    const result = await mergeAgent({ root, worktree: created.path, branch: created.branch, agent: "fix-login", task });
    expect(result.mergedInto).toBe("main");
    expect(result.files).toEqual(["login.ts"]);
    expect(result.commit).toBe(await headCommit(root));
    expect(await fs.readFile(path.join(root, "login.ts"), "utf8")).toBe("export const fixed = true;\n");
    expect(await gitOut(root, "log", "-1", "--format=%s", created.branch)).toBe("offrun: fix-login: Fix the login bug");
    expect(await gitOut(root, "log", "-1", "--format=%s %P", "main")).toMatch(
      /^offrun: merge agent fix-login .* \w+ \w+$/,
    );
    expect(await gitOut(root, "status", "--porcelain")).toBe("");
  });

  test("a conflict aborts the merge, leaves the main checkout clean and lists the file", async () => {
    const root = await makeRepo();
    const created = await createWorktree(request(root, "clash"));
    await fs.writeFile(path.join(created.path, "README.md"), "# Agent's version\n");
    await fs.writeFile(path.join(root, "README.md"), "# Main's version\n");
    await git(root, ["commit", "-q", "-am", "main edits readme"]);
    const before = await headCommit(root);

    const error = await rejection(
      mergeAgent({ root, worktree: created.path, branch: created.branch, agent: "clash", task }),
    );
    expect(error.kind).toBe("conflict");
    expect(error.message).toContain("README.md");
    expect(error.message).toMatch(/merge by hand/);
    expect(await gitOut(root, "status", "--porcelain")).toBe("");
    await expect(fs.access(path.join(root, ".git", "MERGE_HEAD"))).rejects.toThrow();
    expect(await headCommit(root)).toBe(before);
  });

  test("a dirty main checkout is refused, naming the dirty files but not Offrun's own", async () => {
    const root = await makeRepo();
    const conventions = path.join(root, ".offrun", "memory", "conventions.md");
    await fs.mkdir(path.dirname(conventions), { recursive: true });
    await fs.writeFile(conventions, "notes\n");
    await git(root, ["add", "-A"]);
    await git(root, ["commit", "-q", "-m", "memory"]);
    const created = await createWorktree(request(root, "waiter"));
    await fs.writeFile(conventions, "more notes\n");
    expect(await isDirty(root, { ignoreOffrun: true })).toBe(false);
    await fs.writeFile(path.join(root, "README.md"), "uncommitted\n");
    expect(await isDirty(root, { ignoreOffrun: true })).toBe(true);

    const error = await rejection(
      mergeAgent({ root, worktree: created.path, branch: created.branch, agent: "waiter", task }),
    );
    expect(error.kind).toBe("invalid_input");
    expect(error.message).toContain("README.md");
    expect(error.message).not.toContain(".offrun");
  });

  test("a detached HEAD main checkout can still start agents, but merging asks for a branch", async () => {
    const root = await makeRepo();
    await git(root, ["checkout", "-q", "--detach"]);
    const created = await createWorktree(request(root, "detached"));
    expect(created.baseCommit).toBe(await headCommit(root));
    expect(created.baseRef).toBeUndefined();
    expect(await currentBranch(root)).toBeUndefined();

    const error = await rejection(
      mergeAgent({ root, worktree: created.path, branch: created.branch, agent: "detached", task }),
    );
    expect(error.kind).toBe("invalid_input");
    expect(error.message).toMatch(/detached HEAD.*check out the branch to merge into/i);
  });
});

describe("discardWorktree", () => {
  test("uncommitted and untracked work is refused without --force", async () => {
    const root = await makeRepo();
    const created = await createWorktree(request(root, "busy"));
    await fs.writeFile(path.join(created.path, "draft.txt"), "draft\n");
    const error = await rejection(
      discardWorktree({ root, worktree: created.path, branch: created.branch, baseCommit: created.baseCommit }),
    );
    expect(error.kind).toBe("would_lose_work");
    expect(error.message).toContain("draft.txt");
    expect(error.message).toContain("--force");
    await fs.access(created.path);
  });

  test("commits the main checkout's branch lacks are refused without --force", async () => {
    const root = await makeRepo();
    const created = await createWorktree(request(root, "committer"));
    await fs.writeFile(path.join(created.path, "work.txt"), "work\n");
    await commitAgentWork({ worktree: created.path, message: "precious agent work" });
    const error = await rejection(
      discardWorktree({ root, worktree: created.path, branch: created.branch, baseCommit: created.baseCommit }),
    );
    expect(error.kind).toBe("would_lose_work");
    expect(error.message).toContain("precious agent work");
  });

  test("a forced discard removes the worktree, keeps the branch, and can be repeated", async () => {
    const root = await makeRepo();
    const created = await createWorktree(request(root, "doomed"));
    await fs.writeFile(path.join(created.path, "draft.txt"), "draft\n");
    const args = { root, worktree: created.path, branch: created.branch, baseCommit: created.baseCommit, force: true };
    expect(await discardWorktree(args)).toEqual({ removedWorktree: true, deletedBranch: false });
    await expect(fs.access(created.path)).rejects.toThrow();
    expect(await gitOut(root, "branch", "--list", created.branch)).toContain(created.branch);
    expect(await gitOut(root, "worktree", "list")).not.toContain("doomed");
    expect(await discardWorktree(args)).toEqual({ removedWorktree: false, deletedBranch: false });
  });

  test("after a merge it needs no force, and deletes the branch only when asked", async () => {
    const root = await makeRepo();
    const first = await createWorktree(request(root, "merged-a"));
    await fs.writeFile(path.join(first.path, "a.txt"), "a\n");
    await mergeAgent({ root, worktree: first.path, branch: first.branch, agent: "merged-a", task: "add a" });
    expect(
      await discardWorktree({ root, worktree: first.path, branch: first.branch, baseCommit: first.baseCommit }),
    ).toEqual({
      removedWorktree: true,
      deletedBranch: false,
    });
    expect(await gitOut(root, "branch", "--list", first.branch)).toContain(first.branch);

    const second = await createWorktree(request(root, "merged-b"));
    await fs.writeFile(path.join(second.path, "b.txt"), "b\n");
    await mergeAgent({ root, worktree: second.path, branch: second.branch, agent: "merged-b", task: "add b" });
    const result = await discardWorktree({
      root,
      worktree: second.path,
      branch: second.branch,
      baseCommit: second.baseCommit,
      deleteBranch: true,
    });
    expect(result.deletedBranch).toBe(true);
    expect(await gitOut(root, "branch", "--list", second.branch)).toBe("");
  });
});
