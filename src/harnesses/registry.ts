import { OffrunError } from "../core/errors.js";
import { claudeHarness } from "./claude/index.js";
import { codexHarness } from "./codex/index.js";
import { agyHarness, geminiHarness } from "./gemini/index.js";
import { opencodeHarness } from "./opencode/index.js";
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
