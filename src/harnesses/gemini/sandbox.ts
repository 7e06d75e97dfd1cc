import fs from "node:fs";
import path from "node:path";
import type { HarnessSandbox, TurnPlace } from "../types.js";
import { geminiRegistryFile, geminiSlugFolders, geminiSlugRoots, registerGeminiProject } from "./projects.js";

/** Gemini CLI 0.61.0 keeps everything under `<home>/.gemini`, and the Default login's home is $HOME itself. */
const stateOf = (home: string) => path.join(home, ".gemini");

/** Gemini CLI 0.61.0 in a sandboxed turn (what it writes: docs/sandbox.md). */
export const geminiSandbox: HarnessSandbox = {
  // The Gemini API for a key, Code Assist for a Google sign-in, OAuth for its refresh.
  hosts: [
    "generativelanguage.googleapis.com",
    "cloudcode-pa.googleapis.com",
    "oauth2.googleapis.com",
    "accounts.google.com",
  ],
  state: (home) => ({ folders: [stateOf(home)], files: [] }),
  // Run by the next plain `gemini`: settings (hooks, MCP servers, tools), extensions, custom
  // commands, policies, trusted folders, and the user's own instructions; `.gemini/.env`, whose
  // variables every start loads (an empty one is none).
  // Also its agents and skills, and each project's memory (`tmp/<project>/memory/`, whose
  // GEMINI.md and MEMORY.md every later session of that project reads as its own notes): found by
  // the class check's trace of what an unsandboxed turn looks for (test/e2e/sandbox-class.test.ts).
  // And the project registry, `projects.json`, which says whose folder under `tmp/` each project
  // reads (its memory included), with every other project's folder whole (its chats, which each
  // session's next turn resumes) and the own folder's `.project_root`: projects.ts.
  executable: (home, _env, turn) => ({
    files: [
      ...["settings.json", "trustedFolders.json", "GEMINI.md"].map((entry) => path.join(stateOf(home), entry)),
      geminiRegistryFile(stateOf(home)),
      ...(turn ? ownMarkers(stateOf(home), turn) : []),
    ],
    folders: [
      ...["extensions", "commands", "policies", "agents", "skills"].map((entry) => path.join(stateOf(home), entry)),
      ...projectMemoryFolders(stateOf(home)),
      ...(turn ? otherProjectFolders(stateOf(home), turn) : []),
    ],
    blankFiles: [path.join(stateOf(home), ".env")],
  }),
  prepare: async (home, _env, turn) => {
    const state = stateOf(home);
    for (const place of turnPaths(turn)) await registerGeminiProject(state, place);
    const before = new Set(await geminiSlugFolders(state));
    // A slug folder the turn made anyway (the registry is read-only to it) could claim a project
    // the registry does not name yet, the user's main checkout say, with a memory of the turn's.
    return async () => {
      const registry = readRegistrySync(state);
      const said: string[] = [];
      for (const folder of await geminiSlugFolders(state)) {
        if (before.has(folder)) continue;
        // One without a marker goes too: the next new project of that name would claim it, memory and all.
        const owner = await fs.promises
          .readFile(path.join(folder, ".project_root"), "utf8")
          .then((text) => text.trim())
          .catch(() => "");
        if (owner && registry[path.resolve(owner)] === path.basename(folder)) continue;
        await fs.promises.rm(folder, { recursive: true, force: true });
        said.push(
          `${folder} was made during the turn${owner ? ` for ${owner}` : ""}, which Gemini CLI's project registry does not give it; Offrun removed it.`,
        );
      }
      return said;
    };
  },
  env: ["GEMINI_*", "GOOGLE_*", "CLOUDSDK_*"],
};

/** The worktree's path, and its real path when that differs (the CLI may see either). */
function turnPaths(turn: TurnPlace): string[] {
  let real = turn.worktree;
  try {
    real = fs.realpathSync(turn.worktree);
  } catch {
    // not there: its path is the one
  }
  return [...new Set([path.resolve(turn.worktree), real])];
}

/** The registry's project-to-slug map, read as the CLI reads it (anything unreadable is none). */
function readRegistrySync(state: string): Record<string, string> {
  try {
    const parsed = JSON.parse(fs.readFileSync(geminiRegistryFile(state), "utf8")) as { projects?: unknown };
    return typeof parsed.projects === "object" && parsed.projects !== null
      ? (parsed.projects as Record<string, string>)
      : {};
  } catch {
    return {};
  }
}

/** The turn's own slugs, registered by `prepare`. */
function ownSlugs(state: string, turn: TurnPlace): Set<string> {
  const registry = readRegistrySync(state);
  return new Set(turnPaths(turn).flatMap((place) => (registry[place] ? [registry[place]] : [])));
}

function ownMarkers(state: string, turn: TurnPlace): string[] {
  return [...ownSlugs(state, turn)].flatMap((slug) =>
    geminiSlugRoots(state).map((root) => path.join(root, slug, ".project_root")),
  );
}

/** Every project's slug folder but the turn's own, under `tmp/` and `history/` (not the CLI's own `bin`, `background-processes`). */
function otherProjectFolders(state: string, turn: TurnPlace): string[] {
  const own = ownSlugs(state, turn);
  return geminiSlugRoots(state).flatMap((root) => {
    try {
      return fs
        .readdirSync(root, { withFileTypes: true })
        .filter((e) => e.isDirectory() && !own.has(e.name) && e.name !== "bin" && e.name !== "background-processes")
        .map((e) => path.join(root, e.name));
    } catch {
      return [];
    }
  });
}

/** `tmp/<project>/memory` of every project the login has run in (a project's folder exists from its first session). */
function projectMemoryFolders(state: string): string[] {
  const tmp = path.join(state, "tmp");
  try {
    return fs
      .readdirSync(tmp, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !/^[0-9a-f]{64}$/.test(entry.name) && entry.name !== "bin")
      .map((entry) => path.join(tmp, entry.name, "memory"));
  } catch {
    return [];
  }
}
