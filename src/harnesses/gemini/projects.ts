import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import * as z from "zod";

/**
 * Gemini CLI 0.61.0 keeps each project's sessions and memory in `<state>/tmp/<slug>/` (and its
 * shell history in `<state>/history/<slug>/`), where `<state>/projects.json` maps a project's path
 * to its slug and a `.project_root` file in each slug folder names the path that owns it. A path
 * the registry does not name takes the first slug folder whose marker names it. So whoever can
 * write the registry or make a slug folder decides which folder, memory included, the next session
 * of any project reads: a sandboxed turn must do neither. Offrun registers the turn's worktree
 * itself, outside the sandbox, before the turn, the way the CLI would (its `ProjectRegistry`,
 * packages/core/src/config/projectRegistry.ts, bundled in 0.61.0's chunk-5FZXKDXH.js: `getShortId`,
 * `findExistingSlugForPath`, `claimNewSlug`, `ensureOwnershipMarkers`, `slugify`), so that the CLI
 * inside finds its slug and writes neither; then the registry is held read-only, and a slug folder
 * the turn made anyway is removed after it.
 */

const PROJECT_ROOT_FILE = ".project_root";
/** proper-lockfile's defaults, as the CLI takes its lock: a folder beside the file, stale after 10 s. */
const LOCK_STALE_MS = 10_000;
const LOCK_TIMEOUT_MS = 10_000;
const LOCK_RETRY_MS = 100;

const registrySchema = z.object({ projects: z.record(z.string(), z.string().regex(/^[a-z0-9-]+$/)) });
type Registry = z.infer<typeof registrySchema>;

export const geminiRegistryFile = (state: string) => path.join(state, "projects.json");
/** The folders that hold a slug folder per project, each with its `.project_root`. */
export const geminiSlugRoots = (state: string) => [path.join(state, "tmp"), path.join(state, "history")];

/** The CLI's slug of a folder name. */
export function geminiSlug(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9]/g, "-")
      .replace(/-+/g, "-")
      .replace(/^-|-$/g, "") || "project"
  );
}

/**
 * The registry as the CLI reads it: missing, unreadable or of another shape, it is empty. One that
 * is there but unreadable is set aside (`projects.json.unreadable-<ms>`) before it is written anew,
 * where the CLI would overwrite it: nothing of it is lost.
 */
async function readRegistry(file: string): Promise<Registry> {
  const text = await fs.readFile(file, "utf8").catch(() => undefined);
  if (text === undefined) return { projects: {} };
  try {
    const parsed = registrySchema.safeParse(JSON.parse(text));
    if (parsed.success) return parsed.data;
  } catch {
    // set aside below
  }
  await fs.rename(file, `${file}.unreadable-${Date.now()}`);
  return { projects: {} };
}

async function owner(root: string, slug: string): Promise<string | undefined> {
  const text = await fs.readFile(path.join(root, slug, PROJECT_ROOT_FILE), "utf8").catch(() => undefined);
  return text === undefined ? undefined : path.resolve(text.trim());
}

/**
 * The slug of `project` (an absolute path), registered and marked as Gemini CLI 0.61.0 would do it
 * at its start: the registry's, if every marker agrees; else a folder already marked with it; else
 * the first free `<slugified name>[-N]`.
 */
export async function registerGeminiProject(state: string, project: string): Promise<string> {
  const normalized = path.resolve(project);
  const file = geminiRegistryFile(state);
  await fs.mkdir(state, { recursive: true, mode: 0o700 });
  const release = await lock(file);
  try {
    const registry = await readRegistry(file);
    const roots = geminiSlugRoots(state);
    const known = registry.projects[normalized];
    let slug: string | undefined;
    if (known !== undefined) {
      const owners = await Promise.all(roots.map((root) => owner(root, known)));
      if (owners.every((o) => o === undefined || o === normalized)) slug = known;
    }
    slug ??= await markedSlug(roots, normalized);
    slug ??= await freeSlug(roots, normalized, registry);
    for (const root of roots) {
      await fs.mkdir(path.join(root, slug), { recursive: true, mode: 0o700 });
      const marker = path.join(root, slug, PROJECT_ROOT_FILE);
      if ((await owner(root, slug)) === undefined) await fs.writeFile(marker, normalized, { flag: "wx" });
    }
    if (registry.projects[normalized] !== slug || !existsSync(file)) {
      registry.projects[normalized] = slug;
      const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
      await fs.writeFile(temp, JSON.stringify(registry, null, 2), { mode: 0o600 });
      await fs.rename(temp, file);
    }
    return slug;
  } finally {
    await release();
  }
}

/** The first slug folder (in `tmp/`, then `history/`) whose marker names the project. */
async function markedSlug(roots: string[], normalized: string): Promise<string | undefined> {
  for (const root of roots) {
    for (const slug of await fs.readdir(root).catch(() => [] as string[])) {
      if ((await owner(root, slug)) === normalized) return slug;
    }
  }
  return undefined;
}

async function freeSlug(roots: string[], normalized: string, registry: Registry): Promise<string> {
  const base = geminiSlug(path.basename(normalized) || "project");
  const taken = new Set(Object.values(registry.projects));
  for (let counter = 0; ; counter++) {
    const candidate = counter === 0 ? base : `${base}-${counter}`;
    if (taken.has(candidate)) continue;
    const owners = await Promise.all(
      roots.map((root) =>
        fs.stat(path.join(root, candidate, PROJECT_ROOT_FILE)).then(
          () => owner(root, candidate),
          () => null,
        ),
      ),
    );
    if (owners.every((o) => o === null || o === normalized)) return candidate;
  }
}

/** The CLI's own lock on the registry (proper-lockfile: `<file>.lock`, a folder, stale after 10 s). */
async function lock(file: string): Promise<() => Promise<void>> {
  const folder = `${file}.lock`;
  const started = Date.now();
  for (;;) {
    try {
      await fs.mkdir(folder);
      return () => fs.rm(folder, { recursive: true, force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const stat = await fs.stat(folder).catch(() => undefined);
      if (stat && Date.now() - stat.mtimeMs > LOCK_STALE_MS) {
        await fs.rm(folder, { recursive: true, force: true });
        continue;
      }
      if (Date.now() - started > LOCK_TIMEOUT_MS) {
        throw new Error(`${file} stayed locked (${folder}) for ${LOCK_TIMEOUT_MS / 1000} s; is a Gemini CLI hanging?`);
      }
      await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS));
    }
  }
}

/** The slug folders under `tmp/` and `history/` now, by root. */
export async function geminiSlugFolders(state: string): Promise<string[]> {
  const folders: string[] = [];
  for (const root of geminiSlugRoots(state)) {
    const entries = await fs.readdir(root, { withFileTypes: true }).catch(() => []);
    folders.push(...entries.filter((e) => e.isDirectory()).map((e) => path.join(root, e.name)));
  }
  return folders;
}
