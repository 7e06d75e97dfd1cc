import fs from "node:fs/promises";
import path from "node:path";
import { PRIVATE_FILE_MODE } from "./private-files.js";

/**
 * The write failures that mean "no room" (or a disk that can no longer be written): a full disk, a
 * full quota, an I/O error. They get their own handling: retrying or reporting them as Offrun's
 * own failure would hide the one thing the user can fix.
 */
export const DISK_FULL_CODES = ["ENOSPC", "EDQUOT", "EIO"] as const;

export function isDiskFull(error: unknown): error is NodeJS.ErrnoException {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === "string" && (DISK_FULL_CODES as readonly string[]).includes(code);
}

/** KB free to this user on the disk holding `dir` (undefined when that cannot be told). */
export async function freeKb(dir: string): Promise<number | undefined> {
  try {
    const stats = await fs.statfs(dir);
    return Math.floor((stats.bavail * stats.bsize) / 1024);
  } catch {
    return undefined;
  }
}

/** What a person reads when a write of `project`'s found its disk full. */
export function diskFullMessage(project: string, error: NodeJS.ErrnoException): Promise<string> {
  return diskFullAdvice(project, error, "send a message to go on");
}

/** The same for a step that is not a turn (a review's checkout, a merge): `then` says what to do after. */
export async function diskFullAdvice(where: string, error: NodeJS.ErrnoException, then: string): Promise<string> {
  const kb = await freeKb(where);
  const free = kb === undefined ? "" : ` (${kb} KB free)`;
  const what = error.code === "EIO" ? "cannot be written (EIO)" : "is full";
  return `The disk holding ${where} ${what}${free}: free space, then ${then}.`;
}

/**
 * A little room kept on each project's disk for the lines that say the disk is full: a file of
 * RESERVE_BYTES that is deleted the moment a write fails for lack of room, so the turn's last
 * lines (what was lost, and why it ended) still land. Made again at the next turn.
 */
export const RESERVE_BYTES = 64 * 1024;

export function reserveFile(offrunDir: string): string {
  return path.join(offrunDir, "disk-reserve");
}

/** Makes the reserve when it is missing or short; a disk too full for it already is left alone. */
export async function keepReserve(offrunDir: string): Promise<void> {
  const file = reserveFile(offrunDir);
  const size = await fs.stat(file).then(
    (s) => s.size,
    () => -1,
  );
  if (size === RESERVE_BYTES) return;
  // Zeros written, not a sparse file: the blocks must really be taken to be given back later.
  await fs.writeFile(file, Buffer.alloc(RESERVE_BYTES), { mode: PRIVATE_FILE_MODE }).catch(async () => {
    await fs.rm(file, { force: true }).catch(() => undefined);
  });
}

/** Gives the reserve back to the disk; true when there was one. */
export async function releaseReserve(offrunDir: string): Promise<boolean> {
  return fs.rm(reserveFile(offrunDir)).then(
    () => true,
    () => false,
  );
}

/**
 * git's and the system's words for a disk without room (LC_ALL=C): strerror(ENOSPC/EDQUOT/EIO),
 * and git's own "Out of diskspace" when it cannot write an object or an index.
 */
const DISK_FULL_WORDS = /No space left on device|Disk quota exceeded|Input\/output error|Out of diskspace/;

/** Whether `error` (a write's, or a git command's with its output in the message or details) found no room. */
export function failedForRoom(error: unknown): boolean {
  if (isDiskFull(error)) return true;
  const details = (error as { details?: unknown } | undefined)?.details;
  const text = `${error instanceof Error ? error.message : String(error)}\n${typeof details === "string" ? details : ""}`;
  return DISK_FULL_WORDS.test(text);
}

/**
 * Below this much free space, a failed write is told as a full disk even when its words do not say
 * so: git's "couldn't write '.git/ORIG_HEAD.lock'" carries no errno, and which of its writes meets
 * the full disk first varies from run to run.
 */
export const FULL_BELOW_KB = 1024;

/** Whether `error` found no room on the disk holding `dir`: by its words, or by the room that is left. */
export async function ranOutOfRoom(dir: string, error: unknown): Promise<boolean> {
  if (failedForRoom(error)) return true;
  const kb = await freeKb(dir);
  return kb !== undefined && kb < FULL_BELOW_KB;
}

/**
 * Why a step of an operation failed, said for a person: a full disk as "the disk holding <dir> is
 * full (N KB free)", never as the error a half-made step then suggests; anything else as its message.
 */
export async function causeOf(dir: string, error: unknown): Promise<string> {
  if (!(await ranOutOfRoom(dir, error))) return error instanceof Error ? error.message : String(error);
  const kb = await freeKb(dir);
  const code = (error as NodeJS.ErrnoException).code;
  return `the disk holding ${dir} ${code === "EIO" ? "cannot be written (EIO)" : "is full"}${kb === undefined ? "" : ` (${kb} KB free)`}`;
}
