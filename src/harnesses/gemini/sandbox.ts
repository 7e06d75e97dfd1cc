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
  executable: (home) => ({
    files: ["settings.json", "trustedFolders.json", "GEMINI.md"].map((entry) => path.join(stateOf(home), entry)),
    folders: ["extensions", "commands", "policies"].map((entry) => path.join(stateOf(home), entry)),
    blankFiles: [path.join(stateOf(home), ".env")],
  }),
  env: ["GEMINI_*", "GOOGLE_*", "CLOUDSDK_*"],
};
