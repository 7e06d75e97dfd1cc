import fs from "node:fs/promises";
import path from "node:path";
import type * as z from "zod";
import { OffrunError } from "./errors.js";
import { replaceFile } from "./atomic-write.js";
import { injectFault } from "./fault-points.js";
import { appendWholeLine } from "./line-append.js";
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from "./private-files.js";

export interface WriteOptions {
  /** Default 0600, in a folder made 0700: what Offrun writes is the user's alone (private-files.ts). */
  mode?: number;
  /**
   * A file the user commits (`.offrun/config.json`): the umask makes a new one and a missing
   * folder, and an existing one keeps its mode.
   */
  shared?: boolean;
  /**
   * Flush to disk before the rename (default true). Pass false for files written on every turn or
   * that Offrun rebuilds (agent records, caches): the rename alone keeps them whole when a process
   * is killed, only an OS crash could lose the last write, and an fsync on a busy disk can take
   * seconds (seen: the quota lock held 1.5 s, and an 8 s stall between a usage limit and its
   * failover, while a test suite ran beside the benchmark).
   */
  fsync?: boolean;
}

// proper-lockfile loads with the first lock: a command that only reads (`offrun ls`, `show`) does
// without it (it brings graceful-fs, which patches fs).

/**
 * Writes JSON so that a reader never sees half a file (temp file + rename). The mode is set on the
 * temp file, so a file left 0644 by an older Offrun is 0600 after its next write.
 */
export async function writeJsonAtomic(file: string, value: unknown, options: WriteOptions = {}): Promise<void> {
  await writeTextAtomic(file, JSON.stringify(value, null, 2) + "\n", options);
}

/** Writes text whole or not at all (temp file + rename), as writeJsonAtomic: for drafts and settings files. */
export async function writeTextAtomic(file: string, text: string, options: WriteOptions = {}): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true, ...(options.shared ? {} : { mode: PRIVATE_DIR_MODE }) });
  injectFault("atomic", file);
  await replaceFile(file, Buffer.from(text, "utf8"), {
    ...(options.shared ? {} : { mode: options.mode ?? PRIVATE_FILE_MODE }),
    fsync: options.fsync ?? true,
  });
}

/**
 * Runs `fn` holding a lock beside `file` (`<file>.lock`), for read-change-write of a file that
 * the companion and the CLI both write. A lock left by a killed process goes stale in 10 s.
 */
export async function withFileLock<T>(file: string, fn: () => Promise<T>): Promise<T> {
  const { default: lockfile } = await import("proper-lockfile");
  await fs.mkdir(path.dirname(file), { recursive: true, mode: PRIVATE_DIR_MODE });
  // The file itself is what is locked, not its folder: proper-lockfile keeps the locks a process
  // holds by the path given here, so two files of one folder locked at once (the quota and sign-in
  // caches) shared one entry: a release then freed the other file's entry, leaving that `.lock` on
  // disk for every writer to wait out (ELOCKED on the folder when one gave up), or threw "Lock is
  // not acquired/owned by you" (test/unit/core/foundation/store.file-lock.test.ts). The file need not exist (no
  // realpath); on disk the lock is `<file>.lock`, as before.
  const release = await lockfile.lock(file, {
    realpath: false,
    lockfilePath: `${file}.lock`,
    stale: 10_000,
    // Waits longer than `stale` (about 15 s), so a writer always gets the lock in the end, even
    // behind a killed holder; randomized, so many writers at once do not retry in step (a face's
    // write starved behind the companion's quota writes once, under load: "already being held").
    retries: { retries: 150, minTimeout: 10, maxTimeout: 100, randomize: true },
    // proper-lockfile throws from a timer when it finds its lock gone (another process judged it
    // stale): that would end the companion and every agent it runs. The write itself is atomic, so
    // the worst outcome is one lost update of a cache.
    onCompromised: () => undefined,
  });
  try {
    return await fn();
  } finally {
    // A compromised lock (above) is already released: releasing it again throws "Lock is already
    // released", which turned a rename whose writes had all landed into "Could Not Rename the
    // Login" (seen twice in CI, Raycast's Rename Login under load).
    await release().catch((error: unknown) => {
      if ((error as NodeJS.ErrnoException).code !== "ERELEASED") throw error;
    });
  }
}

/** Explains a zod failure as "file: field: problem" lines. */
export function explainZodError(file: string, error: z.ZodError, fix: string): string {
  const lines = error.issues.map((issue) => {
    const field = issue.path.length > 0 ? issue.path.join(".") : "(whole file)";
    return `  ${field}: ${issue.message}`;
  });
  return `${file} is not valid:\n${lines.join("\n")}\n${fix}`;
}

/** Reads and validates a JSON file; `undefined` when it does not exist. */
export async function readJsonFile<S extends z.ZodTypeAny>(
  file: string,
  schema: S,
  fix = "Fix the file or move it aside; Offrun recreates what it owns.",
): Promise<z.output<S> | undefined> {
  let raw: string;
  try {
    raw = await fs.readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new OffrunError("invalid_file", `Cannot read ${file}: ${(error as Error).message}`, { cause: error });
  }
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch (error) {
    throw new OffrunError("invalid_file", `${file} is not valid JSON (${(error as Error).message}). ${fix}`, {
      cause: error,
    });
  }
  const parsed = schema.safeParse(data);
  if (!parsed.success) throw new OffrunError("invalid_file", explainZodError(file, parsed.error, fix));
  return parsed.data;
}

/**
 * Appends one JSON value as one whole line (line-append.ts: a torn tail is set aside first, a short
 * write goes on). A new file is made 0600: these are conversations (chat logs, review logs).
 */
export async function appendJsonLine(file: string, value: unknown): Promise<void> {
  await appendWholeLine(file, JSON.stringify(value), PRIVATE_FILE_MODE);
}

export interface JsonlReadResult<T> {
  entries: T[];
  /** Lines that were not JSON or did not match the schema; kept, never dropped from disk. */
  corrupt: { line: number; text: string; problem: string }[];
}

/** Splits on "\n" only (not readline: U+2028 inside JSON strings is not a line end). */
export function splitJsonl(text: string): string[] {
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

export async function readJsonl<S extends z.ZodTypeAny>(
  file: string,
  schema: S,
): Promise<JsonlReadResult<z.output<S>>> {
  let text: string;
  try {
    text = await fs.readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { entries: [], corrupt: [] };
    throw error;
  }
  const result: JsonlReadResult<z.output<S>> = { entries: [], corrupt: [] };
  splitJsonl(text).forEach((lineText, index) => {
    if (lineText.trim() === "") return;
    let data: unknown;
    try {
      data = JSON.parse(lineText);
    } catch {
      result.corrupt.push({ line: index + 1, text: lineText, problem: "not JSON" });
      return;
    }
    const parsed = schema.safeParse(data);
    if (parsed.success) result.entries.push(parsed.data);
    else
      result.corrupt.push({ line: index + 1, text: lineText, problem: parsed.error.issues[0]?.message ?? "invalid" });
  });
  return result;
}
