import fs from "node:fs/promises";
import { writeAll } from "./line-append.js";

export interface AtomicWriteOptions {
  /** The new file's mode; undefined keeps an existing file's mode and gives a new one the umask's. */
  mode?: number;
  /** Flush to disk before the rename (see WriteOptions.fsync in store.ts). */
  fsync: boolean;
}

let tempCount = 0;

/**
 * Replaces `file` with `bytes` whole or not at all: a temp file beside it, every byte written,
 * then a rename. On any failure (a full disk part way, a kill) the old file is untouched and the
 * temp file is removed. Our own, not write-file-atomic: its 7.0.1 makes one write call and ignores
 * how much was written, so on a nearly full disk it renamed a truncated file over a whole one
 * (seen: a 20 KB draft kept as its first 4096 bytes on a full tmpfs).
 */
export async function replaceFile(file: string, bytes: Buffer, options: AtomicWriteOptions): Promise<void> {
  // Unique to this write (the process, then its own count); "wx" below refuses any file already
  // there. Not random bytes: node:crypto would cost every command's start-up about 7 ms.
  const temp = `${file}.${process.pid}.${(tempCount += 1)}-${Date.now().toString(36)}.tmp`;
  const existingMode =
    options.mode === undefined
      ? await fs.stat(file).then(
          (s) => s.mode & 0o7777,
          () => undefined,
        )
      : undefined;
  const handle = await fs.open(temp, "wx", options.mode ?? 0o666);
  let closed = false;
  try {
    await writeAll(handle, bytes);
    // The open's mode is cut by the umask: set it as asked (a private file), or as it was.
    const mode = options.mode ?? existingMode;
    if (mode !== undefined) await handle.chmod(mode);
    if (options.fsync) await handle.sync();
    await handle.close();
    closed = true;
    await fs.rename(temp, file);
  } catch (error) {
    if (!closed) await handle.close().catch(() => undefined);
    await fs.rm(temp, { force: true }).catch(() => undefined);
    throw error;
  }
}
