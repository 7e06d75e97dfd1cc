import { loadCustomHarnessDefinitions } from "./acp/custom.js";
import { OffrunError } from "../core/foundation/errors.js";
import { createAcpHarness } from "./acp/index.js";
import { claudeHarness } from "./claude/index.js";
import { codexHarness } from "./codex/index.js";
import { agyHarness, geminiHarness } from "./gemini/index.js";
import { opencodeHarness } from "./opencode/index.js";
import { grokHarness } from "./grok/index.js";
import { piHarness } from "./pi/index.js";
import type { Harness } from "./types.js";

/** Every harness Offrun knows, in the order the dashboard lists them. The first is the default. */
export const HARNESSES: readonly Harness[] = [
  claudeHarness,
  codexHarness,
  geminiHarness,
  agyHarness,
  opencodeHarness,
  piHarness,
  grokHarness,
];

export const DEFAULT_HARNESS_ID = HARNESSES[0]!.id;

export function getHarness(id: string): Harness {
  const harness = HARNESSES.find((h) => h.id === id);
  if (!harness) {
    const known = HARNESSES.map((h) => h.id).join(", ");
    throw new OffrunError("invalid_input", `Unknown harness '${id}'. Use one of: ${known}.`);
  }
  return harness;
}

/**
 * The built-ins followed by the custom ACP agents of `~/.offrun/harnesses.json` and, with a
 * project, its `.offrun/config.json` `harnesses`. Read fresh on every call (the files are small),
 * so an edit takes effect without restarting the companion. Throws invalid_file for a bad file.
 */
export async function loadHarnesses(projectRoot?: string, env: NodeJS.ProcessEnv = process.env): Promise<Harness[]> {
  const builtinIds = HARNESSES.map((h) => h.id);
  const custom = await loadCustomHarnessDefinitions({ projectRoot, env, builtinIds });
  return [...HARNESSES, ...custom.map(createAcpHarness)];
}

/** A built-in by id, else a custom ACP agent of this user or project; invalid_input naming all ids when none. */
export async function resolveHarness(
  id: string,
  projectRoot?: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Harness> {
  const builtin = HARNESSES.find((h) => h.id === id);
  if (builtin) return builtin;
  const all = await loadHarnesses(projectRoot, env);
  const harness = all.find((h) => h.id === id);
  if (harness) return harness;
  const known = all.map((h) => h.id).join(", ");
  throw new OffrunError(
    "invalid_input",
    `Unknown harness '${id}'. Use one of: ${known}, or declare it in ~/.offrun/harnesses.json or .offrun/config.json under "harnesses".`,
  );
}
