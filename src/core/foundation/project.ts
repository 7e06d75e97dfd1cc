import fs from "node:fs/promises";
import path from "node:path";
import { describeError, isOffrunError } from "./errors.js";
import { projectConfigSchema, projectsFileSchema, type ProjectConfig, type ProjectsFile } from "./model.js";
import { projectPaths, userPaths } from "./paths.js";
import { makePrivateDir } from "./private-files.js";
import { reportStateProblem } from "./state-problems.js";
import { readJsonFile, writeJsonAtomic, writeTextAtomic } from "./store.js";

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

async function readKnownProjectsFile(): Promise<ProjectsFile | undefined> {
  const file = userPaths().projects;
  try {
    return await readJsonFile(file, projectsFileSchema, "Delete it; Offrun rebuilds it as you start agents.");
  } catch (error) {
    if (!isOffrunError(error, "invalid_file")) throw error;
    return rebuildKnownProjects(file, error.message);
  }
}

/**
 * projects.json is the list every face and the companion start from: a corrupt one stopped the
 * companion at start. It is kept as it was (`projects.json.corrupt-<time>`) and rebuilt from the
 * project folders its text still names, so every other project goes on working; the problem is
 * reported (state-problems.ts) for the faces to say.
 */
async function rebuildKnownProjects(file: string, problem: string): Promise<ProjectsFile> {
  const text = await fs.readFile(file, "utf8").catch(() => "");
  const roots = new Set<string>();
  for (const match of text.matchAll(/"root"\s*:\s*("(?:[^"\\\n]|\\.)*")/g)) {
    const root = parseJsonString(match[1]!);
    if (root !== undefined && path.isAbsolute(root)) roots.add(root);
  }
  const now = new Date().toISOString();
  const rebuilt: ProjectsFile = { version: 1, projects: [...roots].map((root) => ({ root, lastUsedAt: now })) };
  const aside = `${file}.corrupt-${now.replace(/[:.]/g, "-")}`;
  let did: string;
  try {
    await writeTextAtomic(aside, text);
    await writeJsonAtomic(file, rebuilt, { fsync: false });
    did = `Offrun kept it as ${aside} and rebuilt it with the ${roots.size} project(s) it still names`;
  } catch (error) {
    did = `Offrun goes on with the ${roots.size} project(s) it still names (it could not rebuild the file: ${describeError(error)})`;
  }
  reportStateProblem({
    file,
    message: `${problem.split("\n")[0]} ${did}. A project missing from \`offrun ls\` comes back with its next \`offrun start\`.`,
  });
  return rebuilt;
}

function parseJsonString(quoted: string): string | undefined {
  try {
    const value: unknown = JSON.parse(quoted);
    return typeof value === "string" ? value : undefined;
  } catch {
    return undefined;
  }
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
