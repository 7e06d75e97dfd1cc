import fs from "node:fs/promises";
import path from "node:path";
import { describeError, isOffrunError } from "./errors.js";
import { projectConfigSchema, projectsFileSchema, type ProjectConfig, type ProjectsFile } from "./model.js";
import { projectPaths, userPaths } from "./paths.js";
import { makePrivateDir } from "./private-files.js";
import { reportStateProblem } from "./state-problems.js";
import { readJsonFile, writeJsonAtomic, writeTextAtomic } from "./store.js";
import { repositoryTrust, withoutUntrusted, type RepositoryTrust } from "./trust.js";
import * as z from "zod";

const CONFIG_FIX =
  "Fix it where the error above says (see README: Project settings), or move the file aside to use the defaults.";
const rawConfigSchema = z.record(z.string(), z.unknown());

/**
 * Reads `.offrun/config.json` as it takes effect: a missing file means defaults, and the settings
 * that run or widen anything (trust.ts `GATED_KEYS`) only once the user trusted them. Every
 * consumer (start, send, review, handoff, the harness list, the sandbox) reads it here. Errors
 * name the file, the field and the fix.
 */
export async function loadProjectConfig(root: string): Promise<ProjectConfig> {
  return (await loadProjectSettings(root)).config;
}

/** Whether the user trusted the repository's settings as they stand (`offrun trust`). */
export async function repositoryTrusted(root: string): Promise<boolean> {
  return (await loadProjectSettings(root)).trust.trusted;
}

/** The config as it takes effect, and what of it waits for the user's trust. */
export async function loadProjectSettings(
  root: string,
): Promise<{ config: ProjectConfig; trust: RepositoryTrust; raw: Record<string, unknown>; file: string }> {
  const file = projectPaths(root).config;
  // The whole file is checked first, so that a mistake is named whether or not it is trusted.
  const full = await readJsonFile(file, projectConfigSchema, CONFIG_FIX);
  const raw = full === undefined ? {} : ((await readJsonFile(file, rawConfigSchema, CONFIG_FIX)) ?? {});
  const trust = await repositoryTrust(root, raw);
  const config = trust.trusted && full ? full : projectConfigSchema.parse(withoutUntrusted(raw, trust));
  return { config: { ...config, alwaysAllow: [...trust.alwaysAllow, ...config.alwaysAllow] }, trust, raw, file };
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
 *
 * Offrun writes the file atomically, but an editor or a script may truncate it and then write:
 * the companion watches it and can read it in between. A file changed in the last
 * `SETTLING_MS` is read from its text and left alone (rewriting it would throw away the write
 * still under way); the repair waits for a read after it has settled.
 */
async function rebuildKnownProjects(file: string, problem: string): Promise<ProjectsFile> {
  const [text, stat] = await Promise.all([
    fs.readFile(file, "utf8").catch(() => ""),
    fs.stat(file).catch(() => undefined),
  ]);
  const roots = new Set<string>();
  for (const match of text.matchAll(/"root"\s*:\s*("(?:[^"\\\n]|\\.)*")/g)) {
    const root = parseJsonString(match[1]!);
    if (root !== undefined && path.isAbsolute(root)) roots.add(root);
  }
  const now = new Date();
  const rebuilt: ProjectsFile = {
    version: 1,
    projects: [...roots].map((root) => ({ root, lastUsedAt: now.toISOString() })),
  };
  if (stat && now.getTime() - stat.mtimeMs < SETTLING_MS) {
    reportStateProblem({
      file,
      message: `${problem.split("\n")[0]} It changed in the last ${SETTLING_MS / 1000} s, so it may still be being written: Offrun goes on with the ${roots.size} project(s) it names and repairs it if it stays like this.`,
    });
    return rebuilt;
  }
  const aside = `${file}.corrupt-${now.toISOString().replace(/[:.]/g, "-")}`;
  let did: string;
  let repaired = false;
  try {
    await writeTextAtomic(aside, text);
    await writeJsonAtomic(file, rebuilt, { fsync: false });
    did = `Offrun kept it as ${aside} and rebuilt it with the ${roots.size} project(s) it still names`;
    repaired = true;
  } catch (error) {
    did = `Offrun goes on with the ${roots.size} project(s) it still names (it could not rebuild the file: ${describeError(error)})`;
  }
  reportStateProblem({
    file,
    message: `${problem.split("\n")[0]} ${did}. A project missing from \`offrun ls\` comes back with its next \`offrun start\`.`,
    repaired,
  });
  return rebuilt;
}

/** How long after its last change an unreadable projects.json is taken for a write under way. */
const SETTLING_MS = 2000;

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
