import fs from "node:fs";
import path from "node:path";
import type { HarnessSandbox } from "../types.js";

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
  executable: (home) => ({
    files: ["settings.json", "trustedFolders.json", "GEMINI.md"].map((entry) => path.join(stateOf(home), entry)),
    folders: [
      ...["extensions", "commands", "policies", "agents", "skills"].map((entry) => path.join(stateOf(home), entry)),
      ...projectMemoryFolders(stateOf(home)),
    ],
    blankFiles: [path.join(stateOf(home), ".env")],
  }),
  env: ["GEMINI_*", "GOOGLE_*", "CLOUDSDK_*"],
};

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
