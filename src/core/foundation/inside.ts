import fs from "node:fs/promises";
import path from "node:path";

/**
 * Reads a file of a repository only when it is one: a symlink (the file or a folder above it)
 * that leads out of `root` is refused. A repository can commit `conventions.md` as a link to
 * `~/.aws/credentials`; Offrun would put the secret into an agent's prompt. Undefined when the
 * file does not exist; `{ outside }` names where the link leads.
 */
export async function readInside(
  root: string,
  file: string,
): Promise<{ text: string } | { outside: string } | undefined> {
  const real = await fs.realpath(file).catch(() => undefined);
  if (real === undefined) return undefined;
  if (!(await isInsideReal(root, real))) return { outside: real };
  const text = await fs.readFile(real, "utf8").catch(() => undefined);
  return text === undefined ? undefined : { text };
}

/** Whether `real` (already resolved) is inside `root` once `root` is resolved too. */
export async function isInsideReal(root: string, real: string): Promise<boolean> {
  const base = await fs.realpath(root).catch(() => path.resolve(root));
  const relative = path.relative(base, real);
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}

/** The text of a repository's file, or undefined when it is absent or leads out of the repository. */
export async function readTextInside(root: string, file: string): Promise<string | undefined> {
  const read = await readInside(root, file);
  return read && "text" in read ? read.text : undefined;
}

/**
 * A changed file's text for the preview (undefined when unreadable, over 256 KB, or a link that
 * leads out of `worktree`: an agent's `notes.md` can be a link to `~/.ssh/id_ed25519`).
 */
export async function readPreviewText(file: string, worktree: string): Promise<string | undefined> {
  const real = await fs.realpath(file).catch(() => undefined);
  if (real === undefined || !(await isInsideReal(worktree, real))) return undefined;
  const stat = await fs.stat(real).catch(() => undefined);
  if (!stat?.isFile() || stat.size > 256 * 1024) return undefined;
  return fs.readFile(real, "utf8").catch(() => undefined);
}
