import fs from "node:fs/promises";
import { injectFault } from "./fault-points.js";

const NEWLINE = 0x0a;
/** How much of the file is read at a time when looking back for the last line end. */
const TAIL_CHUNK = 64 * 1024;

/** Where a torn last line of `file` is kept when an append sets it aside. */
export function tornFile(file: string): string {
  return `${file}.torn`;
}

/**
 * Appends `line` (one line, its "\n" added) so that the file gains one whole line or nothing a
 * reader would take for one. Before writing, a last line without its "\n" (a write cut short by a
 * crash or a full disk) is set aside into `<file>.torn` and cut off, so the new line does not
 * fuse with it (a turn's first event once vanished into a torn line that way); one that is whole
 * JSON and only lost its "\n" gets it back. A short write is continued; a write that fails part
 * way is cut back to where it began. Appends to one file are serialized by the caller (the
 * journal's queue): the tail is checked without a lock.
 */
export async function appendWholeLine(file: string, line: string, mode: number): Promise<void> {
  const bytes = Buffer.from(`${line}\n`, "utf8");
  // "a+": every write goes to the end (O_APPEND), and the tail can be read and cut.
  const handle = await fs.open(file, "a+", mode);
  try {
    const start = await endOnLineBreak(file, handle, mode);
    injectFault("append", file);
    await appendAll(handle, bytes, start);
  } finally {
    await handle.close();
  }
}

/** Makes the file end on "\n" (or be empty) and returns its size then. */
async function endOnLineBreak(file: string, handle: fs.FileHandle, mode: number): Promise<number> {
  const { size } = await handle.stat();
  if (size === 0) return 0;
  const last = Buffer.alloc(1);
  await handle.read(last, 0, 1, size - 1);
  if (last[0] === NEWLINE) return size;
  const lineStart = await lastLineStart(handle, size);
  const tail = Buffer.alloc(size - lineStart);
  await handle.read(tail, 0, tail.length, lineStart);
  if (isJson(tail)) {
    await appendAll(handle, Buffer.from("\n"), size);
    return size + 1;
  }
  // Kept first, cut second: a crash between the two leaves the line in both places, never in neither.
  await fs.appendFile(tornFile(file), Buffer.concat([tail, Buffer.from("\n")]), { mode });
  await handle.truncate(lineStart);
  return lineStart;
}

/** The offset just past the last "\n" before `size` (0 when there is none). */
async function lastLineStart(handle: fs.FileHandle, size: number): Promise<number> {
  let end = size;
  while (end > 0) {
    const from = Math.max(0, end - TAIL_CHUNK);
    const chunk = Buffer.alloc(end - from);
    await handle.read(chunk, 0, chunk.length, from);
    const at = chunk.lastIndexOf(NEWLINE);
    if (at >= 0) return from + at + 1;
    end = from;
  }
  return 0;
}

function isJson(bytes: Buffer): boolean {
  try {
    JSON.parse(bytes.toString("utf8"));
    return true;
  } catch {
    return false;
  }
}

/**
 * Writes every byte, going on after a short write (write(2) may take fewer bytes than asked when
 * the disk fills; write-file-atomic 7.0.1 ignores that and renames the short file into place).
 */
export async function writeAll(handle: fs.FileHandle, bytes: Buffer): Promise<void> {
  let written = 0;
  while (written < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, written, bytes.length - written);
    written += bytesWritten;
  }
}

/**
 * writeAll for an append: when the write fails part way, the file is cut back to `start`, so what
 * is left is the file as it was; should the cut fail too, the next append sets the torn line aside.
 */
async function appendAll(handle: fs.FileHandle, bytes: Buffer, start: number): Promise<void> {
  try {
    await writeAll(handle, bytes);
  } catch (error) {
    const { size } = await handle.stat().catch(() => ({ size: start }));
    if (size > start) await handle.truncate(start).catch(() => undefined);
    throw error;
  }
}
