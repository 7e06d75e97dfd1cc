import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { git } from "../git/repo.js";

/** Git's own diff and three-way merge, on temp files: exact, and no diff library to carry. */

async function withTempFiles<T>(texts: string[], fn: (files: string[], dir: string) => Promise<T>): Promise<T> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "offrun-mem-"));
  try {
    const files = texts.map((_, i) => path.join(dir, String(i)));
    await Promise.all(texts.map((text, i) => fs.writeFile(files[i]!, text)));
    return await fn(files, dir);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

/**
 * A unified diff of one memory file, headed `a/<label>` / `b/<label>`. An absent side is
 * /dev/null, as git shows a created or deleted file. Empty when the texts are equal.
 */
export async function unifiedDiff(before: string | undefined, after: string | undefined, label: string) {
  if (before === after) return "";
  return withTempFiles([before ?? "", after ?? ""], async ([a, b], dir) => {
    // --no-index works outside any repository; the user's diff settings (color, external tools,
    // prefixes) are switched off so the text is the same everywhere.
    // Exit 1 means "they differ"; anything else is git failing.
    const result = await git(dir, ["diff", "--no-index", "--no-color", "--no-ext-diff", "-U3", "--", a!, b!], {
      timeoutMs: 30_000,
      okExitCodes: [1],
    });
    const hunks = result.stdout.slice(Math.max(0, result.stdout.indexOf("\n@@") + 1));
    const from = before === undefined ? "/dev/null" : `a/${label}`;
    const to = after === undefined ? "/dev/null" : `b/${label}`;
    return `--- ${from}\n+++ ${to}\n${hunks}`;
  });
}

export type RevertResult = { ok: true; text: string } | { ok: false; conflicts: number };

/**
 * Undoes the change `after` -> `before` on `current`, keeping whatever else changed since:
 * `git merge-file` with `after` as the common base. It fails when later edits touch the same
 * lines as the change.
 */
export async function revertOnto(current: string, after: string, before: string): Promise<RevertResult> {
  if (current === after) return { ok: true, text: before };
  return withTempFiles([current, after, before], async ([mine, base, theirs]) => {
    // Exit status is the number of conflicts (negative, i.e. > 127, on an error).
    const result = await git(path.dirname(mine!), ["merge-file", "-p", "--", mine!, base!, theirs!], {
      timeoutMs: 30_000,
      okExitCodes: Array.from({ length: 127 }, (_, index) => index + 1),
    });
    const code = result.exitCode ?? 255;
    if (code === 0) return { ok: true, text: result.stdout };
    return { ok: false, conflicts: code };
  });
}
