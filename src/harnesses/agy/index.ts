import os from "node:os";
import path from "node:path";
import type { Command } from "../../core/foundation/process.js";
import type { Harness, TurnInput } from "../types.js";
import { agyIdentity } from "./identity.js";
import { createAgyLive } from "./live.js";
import { createAgyParser } from "./parser.js";
import { agySessionRoots, agyStateDir, copyAgySession } from "./session-files.js";
import { agyPrompt, agyTurnArgs } from "./turn-args.js";
import { AGY_MIN_VERSION, AGY_VERIFIED } from "./version.js";

export { agyTurnArgs } from "./turn-args.js";
export { createAgyParser, classifyAgyFailure } from "./parser.js";
export { parseAgyLimitText } from "./limit-text.js";
export { copyAgySession } from "./session-files.js";
export { createAgyLive } from "./live.js";
export { AGY_MIN_VERSION } from "./version.js";

/**
 * Antigravity CLI (`agy`), Google's successor to Gemini CLI for Google sign-ins. It is closed
 * source and does not install here: every fact below comes from its published release notes,
 * docs and issues and from open-source tools that drive the real CLI, listed with their files in
 * docs/harnesses/agy.md. Turns run through `live` (see live.ts) for its quota watchdog; agy itself
 * never asks: print mode approves edits and commands and auto-denies the rest.
 */
function agyTurnCommand(input: TurnInput): Command {
  const env: NodeJS.ProcessEnv = { ...input.env };
  if (input.loginHome) env.HOME = input.loginHome;
  return {
    file: input.binary,
    args: agyTurnArgs(input),
    cwd: input.cwd,
    env,
    ...(input.promptViaStdin ? { input: agyPrompt(input) } : {}),
  };
}

export const agyHarness: Harness = {
  id: "agy",
  displayName: "Antigravity CLI",
  binaryName: "agy",
  installHint: "curl -fsSL https://antigravity.google/cli/install.sh | bash",
  // agy has no variable that moves its state: it lives under ~/.gemini/antigravity-cli, so an
  // added login is a separate HOME. Its sign-in is one OS keyring item that HOME does not move:
  // logins in several homes share it (docs/harnesses/agy.md, Sign-in).
  homeVariable: "HOME",
  defaultHome: (env) => env.HOME || os.homedir(),
  choosesSessionId: false,
  versionArgs: ["--version"],
  minimumVersion: { version: AGY_MIN_VERSION, verified: AGY_VERIFIED },
  turnCommand: agyTurnCommand,
  createParser: () => createAgyParser(),
  live: createAgyLive(agyTurnCommand),
  liveOnly: true,
  liveAsks: false,
  // First-time sign-in is interactive (browser OAuth) in a bare `agy`.
  loginArgs: [],
  identity: agyIdentity,
  // Limits come from agy's own error (with "Resets in …"); it keeps no quota files Offrun can read.
  quotaSources: [],
  quotaCoverage: "limits",
  sessionRoots: agySessionRoots,
  sandbox: {
    // The Antigravity backend (daily-cloudcode-pa for the admin calls agy makes at start,
    // cloudcode-pa where its quota errors come from) and Google's OAuth for the token refresh.
    hosts: [
      "daily-cloudcode-pa.googleapis.com",
      "cloudcode-pa.googleapis.com",
      "oauth2.googleapis.com",
      "accounts.google.com",
    ],
    // Its Default login's home is HOME itself: only its own state folder is written. What it
    // obeys there (settings.json's permissions.allow, its MCP servers and hooks; docs/harnesses/agy.md,
    // from the vendor's docs, not run here) stays read-only.
    state: (home) => ({ folders: [agyStateDir(home)], files: [] }),
    executable: (home) => ({
      files: ["settings.json", "mcp_config.json"].map((entry) => path.join(agyStateDir(home), entry)),
      folders: [path.join(agyStateDir(home), ".agents")],
    }),
  },
  approvals:
    "not interactive in headless mode: Build (--mode accept-edits) edits without asking; what agy would ask about (shell commands, depending on its version and the login's permissions.allow) it auto-denies, logged as denials; Planner runs --mode plan",
  copySession: copyAgySession,
};
