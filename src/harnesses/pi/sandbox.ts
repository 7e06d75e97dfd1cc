import path from "node:path";
import { PROVIDER_VARIABLES } from "../shared/provider-env.js";
import type { HarnessSandbox } from "../types.js";
import { piConfiguration } from "./config-hosts.js";

/** Pi 0.73.1 in a sandboxed turn (what it writes: docs/sandbox.md). */
export const piSandbox: HarnessSandbox = {
  // Pi talks to the provider of its model; the common ones are listed (sandbox.allowHosts adds more).
  hosts: ["api.anthropic.com", "api.openai.com", "generativelanguage.googleapis.com", "openrouter.ai"],
  // Run by the next plain `pi`: settings (its packages), custom providers, TypeScript extensions,
  // packages installed from git, skills, prompt templates, themes, and the system prompt files.
  // Its start also looks for `tools/`, `commands/`, `hooks/` and the other spellings of the
  // instruction files (the class check's trace, test/e2e/sandbox-class.test.ts).
  executable: (home) => ({
    files: [
      "settings.json",
      "models.json",
      "AGENTS.md",
      "AGENTS.MD",
      "CLAUDE.md",
      "CLAUDE.MD",
      "SYSTEM.md",
      "APPEND_SYSTEM.md",
    ].map((entry) => path.join(home, entry)),
    folders: ["extensions", "git", "skills", "prompts", "themes", "tools", "commands", "hooks"].map((entry) =>
      path.join(home, entry),
    ),
  }),
  configured: (home) => piConfiguration(home),
  env: ["PI_*", ...PROVIDER_VARIABLES],
};
