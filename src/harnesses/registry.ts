import { isOffrunError, OffrunError } from "../core/foundation/errors.js";
import { reportStateProblem } from "../core/foundation/state-problems.js";
import { loadCustomHarnessDefinitions } from "./acp/custom.js";
import { createAcpHarness } from "./acp/index.js";
import { claudeHarness } from "./claude/index.js";
import { codexHarness } from "./codex/index.js";
import { agyHarness } from "./agy/index.js";
import { geminiHarness } from "./gemini/index.js";
import { opencodeHarness } from "./opencode/index.js";
import { grokHarness } from "./grok/index.js";
import { piHarness } from "./pi/index.js";
import type { Harness } from "./types.js";

/**
 * The one harness registry. Every lookup (start, logins, quota, review, notifications, the
 * dashboard) goes through `listHarnesses` or `findHarness`, so a custom ACP agent declared in
 * `~/.offrun/harnesses.json` (or a project's `.offrun/config.json`) is found wherever a built-in
 * is. The built-in list is exported for the few things that are fixed at build time: the
 * default harness and the ids a custom agent may not take.
 */

/** The agent CLIs built into Offrun, in the order the dashboard lists them. The first is the default. */
export const BUILTIN_HARNESSES: readonly Harness[] = [
  claudeHarness,
  codexHarness,
  geminiHarness,
  agyHarness,
  opencodeHarness,
  piHarness,
  grokHarness,
];

export const DEFAULT_HARNESS_ID = BUILTIN_HARNESSES[0]!.id;

export interface HarnessScope {
  /** A project whose `.offrun/config.json` may declare more agents. */
  project?: string;
  env?: NodeJS.ProcessEnv;
}

/**
 * The built-ins followed by the custom ACP agents of this user and, with a project, its own.
 * Read fresh on every call (the files are small), so an edit takes effect without restarting the
 * companion. Throws invalid_file for a bad file; `tolerant` keeps the built-ins then (a view that
 * lists everything should not go blank over one bad entry).
 */
export async function listHarnesses(scope: HarnessScope & { tolerant?: boolean } = {}): Promise<Harness[]> {
  const builtinIds = BUILTIN_HARNESSES.map((h) => h.id);
  const load = (project?: string) =>
    loadCustomHarnessDefinitions({ projectRoot: project, env: scope.env ?? process.env, builtinIds });
  let custom;
  try {
    custom = await load(scope.project);
  } catch (error) {
    if (!scope.tolerant) throw error;
    // Named, not dropped in silence: the view lists the built-ins, the faces say which file is bad.
    if (isOffrunError(error, "invalid_file")) {
      reportStateProblem({ file: error.message.split(" ")[0] ?? "", message: error.message.split("\n").join(" ") });
    }
    custom = scope.project === undefined ? [] : await load().catch(() => []);
  }
  return [...BUILTIN_HARNESSES, ...custom.map(createAcpHarness)];
}

/** A harness by id, built-in or custom; invalid_input naming every id when there is none. */
export async function findHarness(id: string, scope: HarnessScope = {}): Promise<Harness> {
  const builtin = BUILTIN_HARNESSES.find((h) => h.id === id);
  if (builtin) return builtin;
  const all = await listHarnesses(scope);
  const harness = all.find((h) => h.id === id);
  if (harness) return harness;
  throw new OffrunError(
    "invalid_input",
    `Unknown harness '${id}'. Use one of: ${all.map((h) => h.id).join(", ")}, or declare it in ~/.offrun/harnesses.json or .offrun/config.json under "harnesses".`,
  );
}

/** Whether `id` is one of Offrun's own CLIs rather than a user's ACP agent. */
export function isBuiltinHarness(id: string): boolean {
  return BUILTIN_HARNESSES.some((h) => h.id === id);
}
