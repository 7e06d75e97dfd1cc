import fs from "node:fs/promises";
import path from "node:path";
import * as z from "zod";
import { OffrunError } from "../../core/foundation/errors.js";

/**
 * Gemini CLI 0.61.0 keeps each session at
 * `$GEMINI_CLI_HOME/.gemini/tmp/<project>/chats/session-<yyyy-mm-ddThh-mm>-<first 8 of id>.jsonl`,
 * where <project> is a short name (the cwd's basename) that `.gemini/projects.json` maps the cwd
 * to. The first line is `{"sessionId", "projectHash", "startTime", …}`. A resume (`-r <id>`)
 * appends to the same file (checked with 0.61.0).
 */

const projectsSchema = z.looseObject({ projects: z.record(z.string(), z.string()) });

export function geminiSessionRoots(home: string): string[] {
  return [path.join(home, ".gemini", "tmp")];
}

async function readProjects(home: string): Promise<Record<string, string>> {
  try {
    const parsed = projectsSchema.safeParse(
      JSON.parse(await fs.readFile(path.join(home, ".gemini", "projects.json"), "utf8")),
    );
    return parsed.success ? parsed.data.projects : {};
  } catch {
    return {};
  }
}

async function firstLine(file: string): Promise<string> {
  const handle = await fs.open(file, "r");
  try {
    const buffer = Buffer.alloc(4096);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead).toString("utf8").split("\n")[0] ?? "";
  } finally {
    await handle.close();
  }
}

/** The session's file under `home`: in the cwd's project folder first, else in any project folder. */
export async function findGeminiSession(home: string, sessionId: string, cwd: string): Promise<string | undefined> {
  const tmp = path.join(home, ".gemini", "tmp");
  const projects = await readProjects(home);
  const realCwd = await fs.realpath(cwd).catch(() => cwd);
  const preferred = [projects[cwd], projects[realCwd]].filter((p): p is string => p !== undefined);
  const all = await fs.readdir(tmp).catch(() => [] as string[]);
  const suffix = `-${sessionId.slice(0, 8)}.json`;
  for (const project of new Set([...preferred, ...all])) {
    const chats = path.join(tmp, project, "chats");
    const names = await fs.readdir(chats).catch(() => [] as string[]);
    for (const name of names.filter((n) => n.startsWith("session-") && n.includes(suffix))) {
      const file = path.join(chats, name);
      // The 8-character prefix can collide: the first line names the whole id.
      if ((await firstLine(file).catch(() => "")).includes(`"sessionId":"${sessionId}"`)) return file;
    }
  }
  return undefined;
}

/**
 * Copies a session into the project folder the other home uses for `cwd` (or the same folder
 * name when that home has not seen the cwd yet: the CLI then derives the same name from it).
 */
export async function copyGeminiSession(request: {
  fromHome: string;
  toHome: string;
  sessionId: string;
  cwd: string;
}): Promise<void> {
  const source = await findGeminiSession(request.fromHome, request.sessionId, request.cwd);
  if (!source) {
    throw new OffrunError(
      "not_found",
      `Gemini CLI session ${request.sessionId} is not under ${path.join(request.fromHome, ".gemini", "tmp")}. ` +
        "It cannot be resumed in another login.",
    );
  }
  const sourceProject = path.dirname(path.dirname(source));
  const target = (await readProjects(request.toHome))[request.cwd] ?? path.basename(sourceProject);
  const targetProject = path.join(request.toHome, ".gemini", "tmp", target);
  await fs.mkdir(path.join(targetProject, "chats"), { recursive: true, mode: 0o700 });
  await fs.copyFile(source, path.join(targetProject, "chats", path.basename(source)));
  // `.project_root` names the cwd that owns the folder; the CLI checks it before reusing a name.
  await fs
    .copyFile(
      path.join(sourceProject, ".project_root"),
      path.join(targetProject, ".project_root"),
      fs.constants.COPYFILE_EXCL,
    )
    .catch(() => undefined);
}
