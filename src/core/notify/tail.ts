import fs from "node:fs/promises";

/** Where a follower stands in one append-only file. */
export interface TailPosition {
  offset: number;
  /** The file's inode when last read: another inode under the same name is a new file. */
  ino?: number;
  /** The bytes after the last "\n": a line still being written waits for its end. */
  partial: Buffer;
}

export function tailPosition(offset: number, ino?: number): TailPosition {
  return { offset, ...(ino === undefined ? {} : { ino }), partial: Buffer.alloc(0) };
}

/**
 * Reads what was appended to `file` since `position` (which it advances) and returns the complete
 * lines, split on "\n" only: a JSON string may hold U+2028, which readline would take for a line
 * end. A file that shrank or was replaced (another inode) is read again from its start, and
 * `restarted` says so. Undefined when the file is gone.
 */
export async function readAppendedLines(
  file: string,
  position: TailPosition,
): Promise<{ lines: string[]; restarted: boolean } | undefined> {
  const stat = await fs.stat(file).catch(() => undefined);
  if (!stat) return undefined;
  const replaced = position.ino !== undefined && position.ino !== stat.ino;
  const restarted = replaced || stat.size < position.offset;
  if (restarted) {
    position.offset = 0;
    position.partial = Buffer.alloc(0);
  }
  position.ino = stat.ino;
  if (stat.size === position.offset) return { lines: [], restarted };
  const handle = await fs.open(file, "r");
  let chunk: Buffer;
  try {
    chunk = Buffer.alloc(stat.size - position.offset);
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, position.offset);
    chunk = chunk.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
  position.offset += chunk.length;
  // Split bytes, not text: a multi-byte character may straddle two reads.
  const data = Buffer.concat([position.partial, chunk]);
  const end = data.lastIndexOf(0x0a);
  position.partial = Buffer.from(end === -1 ? data : data.subarray(end + 1));
  if (end === -1) return { lines: [], restarted };
  const lines = data
    .subarray(0, end)
    .toString("utf8")
    .split("\n")
    .filter((line) => line.trim() !== "");
  return { lines, restarted };
}

/** The first line of a file (up to `max` bytes), for the context a reader that starts mid-file lacks. */
export async function readFirstLine(file: string, max = 1 << 20): Promise<string | undefined> {
  const handle = await fs.open(file, "r").catch(() => undefined);
  if (!handle) return undefined;
  try {
    const buffer = Buffer.alloc(max);
    const { bytesRead } = await handle.read(buffer, 0, max, 0);
    const end = buffer.subarray(0, bytesRead).indexOf(0x0a);
    return end === -1 ? undefined : buffer.subarray(0, end).toString("utf8");
  } finally {
    await handle.close();
  }
}
