import { createHash } from "node:crypto";
import { constants as fsConstants } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { isOffrunError } from "../foundation/errors.js";
import { git } from "../git/repo.js";
import { countFileName, countNames, emptyCodeNames, type CodeNames } from "./extract.js";

/**
 * Which files a project's vocabulary is read from, and a fingerprint that changes whenever one of
 * them may have. In a git repository git lists them (tracked plus untracked, minus ignored: the
 * same files a person thinks of as the project); elsewhere a walk that skips dependency, VCS and
 * build folders.
 */
export interface ProjectState {
  listedBy: "git" | "walk";
  fingerprint: string;
  /** The walk's file list (a walk finds the files and the fingerprint in one pass). */
  walked?: string[];
}

/** Never part of a project's own vocabulary: dependencies, VCS data, agent worktrees, build output. */
const SKIPPED_DIRS = new Set([
  "node_modules",
  ".git",
  ".worktrees",
  ".offrun",
  "build",
  "dist",
  "out",
  "coverage",
  ".next",
  "target",
  "vendor",
  ".venv",
  "__pycache__",
]);
/** Generated files whose names are hashes and versions, not words anyone says. */
const SKIPPED_FILES = new Set([
  "package-lock.json",
  "yarn.lock",
  "pnpm-lock.yaml",
  "Cargo.lock",
  "poetry.lock",
  "Gemfile.lock",
  "composer.lock",
  "go.sum",
]);
const SKIPPED_SUFFIXES = [".min.js", ".min.css", ".map", ".svg", ".lock"];
/** Larger files are data or generated code. */
export const MAX_FILE_BYTES = 1024 * 1024;
const MAX_FILES = 200_000;
const READ_CONCURRENCY = 16;
const WALK_DEPTH = 32;

const isSkippedPath = (relative: string) =>
  relative.endsWith("/") || relative.split("/").some((part) => SKIPPED_DIRS.has(part));

/** The project's fingerprint; cheap in a git repository (two git calls), a stat of every file otherwise. */
export async function readProjectState(root: string): Promise<ProjectState> {
  try {
    return { listedBy: "git", fingerprint: await gitFingerprint(root) };
  } catch (error) {
    // No git on this machine, or not a repository: the walk still gives a vocabulary.
    if (isOffrunError(error, "git") || isOffrunError(error, "not_installed")) return walkProject(root);
    throw error;
  }
}

/** Paths relative to the root, with "/" separators, read after `state` was taken (so a change in between shows next time). */
export async function listProjectFiles(root: string, state: ProjectState): Promise<string[]> {
  if (state.walked) return state.walked;
  const listed = await git(root, ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    maxBuffer: 200_000_000,
  });
  const files = [...new Set(listed.stdout.split("\0"))].filter((f) => f !== "" && !isSkippedPath(f));
  return files.slice(0, MAX_FILES);
}

/**
 * HEAD plus every changed or untracked path with its size and mtime: committed content is named
 * by HEAD, and anything else that differs shows in `git status`. Two git calls, whatever the size.
 */
export async function gitFingerprint(root: string): Promise<string> {
  const head = await git(root, ["rev-parse", "--verify", "-q", "HEAD"], { okExitCodes: [1] });
  const status = await git(root, ["status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames"], {
    maxBuffer: 200_000_000,
  });
  const hash = createHash("sha256").update(`git\0${head.stdout.trim()}\0`);
  // Offrun's own files (.offrun/ chats and memory, .worktrees/) change with every turn and are never read.
  const records = status.stdout.split("\0").filter((record) => record !== "" && !isSkippedPath(record.slice(3)));
  const stats = await Promise.all(
    records.map((record) => fs.stat(path.join(root, record.slice(3))).catch(() => undefined)),
  );
  records.forEach((record, index) => {
    const stat = stats[index];
    hash.update(`${record}\0${stat?.size ?? -1}\0${stat?.mtimeMs ?? -1}\0`);
  });
  return hash.digest("hex");
}

async function walkProject(root: string): Promise<ProjectState> {
  const files: string[] = [];
  const hash = createHash("sha256").update("walk\0");
  const walk = async (dir: string, relative: string, depth: number): Promise<void> => {
    if (depth > WALK_DEPTH || files.length >= MAX_FILES) return;
    const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const child = relative === "" ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name)) await walk(path.join(dir, entry.name), child, depth + 1);
      } else if (entry.isFile() && files.length < MAX_FILES) {
        const stat = await fs.stat(path.join(dir, entry.name)).catch(() => undefined);
        if (stat === undefined) continue;
        files.push(child);
        hash.update(`${child}\0${stat.size}\0${stat.mtimeMs}\0`);
      }
    }
  };
  await walk(root, "", 0);
  return { listedBy: "walk", fingerprint: hash.digest("hex"), walked: files };
}

export interface ScanResult {
  names: CodeNames;
  /** Files whose contents were read for names. */
  read: number;
  /** Files whose contents were skipped: binary, too large, generated, or gone since listing. */
  skipped: number;
}

/** Reads each file's names and counts every file name. */
export async function scanProjectFiles(root: string, files: readonly string[]): Promise<ScanResult> {
  const names = emptyCodeNames();
  let read = 0;
  let skipped = 0;
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const relative = files[next++]!;
      countFileName(relative, names.fileNames);
      const text = await readTextFile(path.join(root, relative), path.posix.basename(relative));
      if (text === undefined) {
        skipped += 1;
        continue;
      }
      countNames(text, names.identifiers);
      read += 1;
    }
  };
  await Promise.all(Array.from({ length: READ_CONCURRENCY }, worker));
  return { names, read, skipped };
}

async function readTextFile(file: string, name: string): Promise<string | undefined> {
  if (SKIPPED_FILES.has(name) || SKIPPED_SUFFIXES.some((suffix) => name.endsWith(suffix))) return undefined;
  // Non-blocking: a named pipe listed as a file would otherwise wait forever for a writer.
  const handle = await fs.open(file, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK).catch(() => undefined);
  if (handle === undefined) return undefined;
  let bytes: Buffer;
  try {
    const stat = await handle.stat();
    if (!stat.isFile() || stat.size > MAX_FILE_BYTES) return undefined;
    bytes = await handle.readFile();
  } catch {
    return undefined; // gone or unreadable since it was listed
  } finally {
    await handle.close();
  }
  if (bytes.subarray(0, 8000).includes(0)) return undefined;
  // Names are ASCII; latin1 decodes several times faster than UTF-8, and what it makes of other
  // scripts' bytes is never an ASCII letter, so the names found are the same.
  return bytes.toString("latin1");
}
