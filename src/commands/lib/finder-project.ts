import fs from "node:fs/promises";
import path from "node:path";
import { getSelectedFinderItems } from "@raycast/api";
import { findRepoRoot } from "../../core/git/repo.js";

/**
 * The git repository of what was selected in Finder as Raycast opened (a folder, or a file's
 * folder): Start Agent opens on it. Raycast can tell only when Finder was the frontmost app; it
 * says nothing of a terminal's folder (there, `offrun start` runs in the current folder).
 */
export async function finderRepository(): Promise<string | undefined> {
  const items = await getSelectedFinderItems().catch(() => []);
  const first = items[0]?.path;
  if (!first) return undefined;
  const stat = await fs.stat(first).catch(() => undefined);
  if (!stat) return undefined;
  return findRepoRoot(stat.isDirectory() ? first : path.dirname(first)).catch(() => undefined);
}
