import fs from "node:fs/promises";
import { projectConfigSchema, projectsFileSchema, type ProjectConfig } from "./model.js";
import { projectPaths, userPaths } from "./paths.js";
import { makePrivateDir } from "./private-files.js";
import { readJsonFile, writeJsonAtomic } from "./store.js";

/** Reads `.offrun/config.json`; a missing file means defaults. Errors name the file, the field and the fix. */
export async function loadProjectConfig(root: string): Promise<ProjectConfig> {
  const file = projectPaths(root).config;
  const config = await readJsonFile(
    file,
    projectConfigSchema,
    "Fix the field named above (see README: Project settings), or delete the file to use the defaults.",
  );
  return config ?? projectConfigSchema.parse({});
}

/** Remembers a project in `~/.offrun/projects.json` so the dashboard and the companion find it. */
export async function rememberProject(root: string, now = new Date()): Promise<void> {
  const file = userPaths().projects;
  const current = (await readKnownProjectsFile()) ?? { version: 1 as const, projects: [] };
  const others = current.projects.filter((p) => p.root !== root);
  await writeJsonAtomic(
    file,
    { version: 1, projects: [{ root, lastUsedAt: now.toISOString() }, ...others] },
    { fsync: false },
  );
}

async function readKnownProjectsFile() {
  return readJsonFile(userPaths().projects, projectsFileSchema, "Delete it; Offrun rebuilds it as you start agents.");
}

/** Known projects that still exist, most recently used first. */
export async function knownProjects(): Promise<string[]> {
  const file = await readKnownProjectsFile();
  const roots: string[] = [];
  for (const project of file?.projects ?? []) {
    const exists = await fs
      .stat(project.root)
      .then((s) => s.isDirectory())
      .catch(() => false);
    if (exists) roots.push(project.root);
  }
  return roots;
}

/**
 * Makes the per-project folders Offrun owns: `.offrun` with the umask's mode (it holds the memory
 * and config.json the user commits), the chats and agent records in it user-only.
 */
export async function ensureProjectDirs(root: string): Promise<void> {
  const paths = projectPaths(root);
  await fs.mkdir(paths.offrun, { recursive: true });
  await Promise.all([paths.chats, paths.logs].map((dir) => makePrivateDir(dir)));
}
