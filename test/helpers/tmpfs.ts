import fs from "node:fs/promises";
import path from "node:path";
import { execa, execaSync } from "execa";

/**
 * A real full disk: a small tmpfs. Mounting needs root (or CAP_SYS_ADMIN) on Linux; CI runs as
 * root and can. A symlink to /dev/full would not do: atomic writes put a temp file beside the
 * target's real path and rename it.
 */
export function canMountTmpfs(): boolean {
  if (process.platform !== "linux") return false;
  const probe = `/tmp/offrun-mount-probe-${process.pid}`;
  try {
    execaSync("mkdir", ["-p", probe], { timeout: 10_000 });
    execaSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", probe], { timeout: 10_000 });
    execaSync("umount", [probe], { timeout: 10_000 });
    return true;
  } catch {
    return false;
  } finally {
    execaSync("rmdir", [probe], { reject: false, timeout: 10_000 });
  }
}

/** `test`, or skipped saying why in its name where this user cannot mount a tmpfs. */
export const itWithTmpfs: (name: string, fn: () => Promise<void>, timeout?: number) => void = canMountTmpfs()
  ? test
  : (name, fn, timeout) => test.skip(`${name} [skipped: this user cannot mount a tmpfs; run as root]`, fn, timeout);

export async function mountTmpfs(dir: string, size: string): Promise<void> {
  await fs.mkdir(dir, { recursive: true });
  await execa("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir], { timeout: 10_000 });
}

export async function unmountTmpfs(dir: string): Promise<void> {
  await execa("umount", [dir], { reject: false, timeout: 10_000 });
}

/** Fills the tmpfs at `filler`'s folder, then tops it up until no block is free half a second later. */
export async function fillToTheLastByte(filler: string): Promise<void> {
  await execa("dd", ["if=/dev/zero", `of=${filler}`, "bs=4k"], { reject: false, timeout: 30_000 });
  for (let round = 0; round < 20; round += 1) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    if ((await fs.statfs(path.dirname(filler))).bfree === 0) return;
    await execa("dd", ["if=/dev/zero", `of=${filler}-${round}`, "bs=4k"], { reject: false, timeout: 30_000 });
  }
  throw new Error(`the tmpfs at ${path.dirname(filler)} would not stay full`);
}

/** Leaves `pages` free blocks on the tmpfs at `filler`'s folder (fills it, then frees that much). */
export async function leaveFree(filler: string, bytes: number): Promise<void> {
  await fillToTheLastByte(filler);
  const { bsize } = await fs.statfs(path.dirname(filler));
  const size = (await fs.stat(filler)).size;
  await fs.truncate(filler, Math.max(0, size - Math.ceil(bytes / bsize) * bsize));
}
