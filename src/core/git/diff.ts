import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { git } from "./repo.js";

export interface ChangedFile {
  path: string;
  status: "added" | "modified" | "deleted" | "renamed";
  additions: number;
  deletions: number;
  oldPath?: string;
  /** True for binary files (no line counts). */
  binary?: boolean;
}

export interface WorktreeDiff {
  files: ChangedFile[];
  patch: string;
}

/**
 * Everything the agent changed since `baseCommit`: its commits plus uncommitted and untracked
 * work. Untracked files are staged into a throwaway copy of the index, so the worktree's own
 * index (what the agent or user staged) is never touched.
 */
export async function diffWorktree(request: {
  worktree: string;
  baseCommit: string;
  signal?: AbortSignal;
}): Promise<WorktreeDiff> {
  const { worktree, baseCommit, signal } = request;
  signal?.throwIfAborted();
  const indexPath = (
    await git(worktree, ["rev-parse", "--path-format=absolute", "--git-path", "index"], { signal })
  ).stdout.trim();
  const tmpDir = await fs.mkdtemp(path.join(os.tmpdir(), "offrun-diff-"));
  const tmpIndex = path.join(tmpDir, "index");
  try {
    // A copy of the real index keeps git's stat cache, so unchanged files are not re-hashed.
    await fs.copyFile(indexPath, tmpIndex).catch(() => undefined);
    const env = { GIT_INDEX_FILE: tmpIndex };
    await git(worktree, ["add", "-A", "--", "."], { env, signal });
    const common = ["diff", "--cached", "-M", "--no-ext-diff", "--no-textconv", "--no-color"];
    const nameStatus = await git(worktree, [...common, "--name-status", "-z", baseCommit, "--"], { env, signal });
    const numstat = await git(worktree, [...common, "--numstat", "-z", baseCommit, "--"], { env, signal });
    const patch = await git(worktree, [...common, "--src-prefix=a/", "--dst-prefix=b/", baseCommit, "--"], {
      env,
      signal,
      maxBuffer: 100_000_000,
    });
    return { files: parseChanges(nameStatus.stdout, numstat.stdout), patch: patch.stdout };
  } finally {
    await fs.rm(tmpDir, { recursive: true, force: true });
  }
}

const STATUS: Record<string, ChangedFile["status"]> = {
  A: "added",
  M: "modified",
  T: "modified",
  D: "deleted",
  R: "renamed",
  C: "added",
};

/** Joins `--name-status -z` and `--numstat -z` output (git's formats, see git-diff(1) "RAW OUTPUT FORMAT"). */
function parseChanges(nameStatus: string, numstat: string): ChangedFile[] {
  const counts = new Map<string, { additions: number; deletions: number; binary: boolean }>();
  const numTokens = numstat.split("\0");
  for (let i = 0; i < numTokens.length; i++) {
    const match = /^(-|\d+)\t(-|\d+)\t(.*)$/s.exec(numTokens[i] ?? "");
    if (!match) continue;
    let file = match[3] ?? "";
    if (file === "") {
      file = numTokens[i + 2] ?? ""; // a rename: "<a>\t<d>\t\0<old>\0<new>"
      i += 2;
    }
    const binary = match[1] === "-";
    counts.set(file, { additions: binary ? 0 : Number(match[1]), deletions: binary ? 0 : Number(match[2]), binary });
  }
  const files: ChangedFile[] = [];
  const tokens = nameStatus.split("\0");
  for (let i = 0; i < tokens.length; i++) {
    const code = tokens[i] ?? "";
    if (code === "") continue;
    const status = STATUS[code[0] ?? ""] ?? "modified";
    const hasOld = code[0] === "R" || code[0] === "C";
    const oldPath = hasOld ? tokens[++i] : undefined;
    const file = tokens[++i] ?? "";
    const count = counts.get(file) ?? { additions: 0, deletions: 0, binary: false };
    files.push({
      path: file,
      status,
      additions: count.additions,
      deletions: count.deletions,
      ...(oldPath !== undefined ? { oldPath } : {}),
      ...(count.binary ? { binary: true } : {}),
    });
  }
  return files;
}
