import os from "node:os";
import path from "node:path";
import type { Command } from "../../core/foundation/process.js";
import type { Harness, TurnInput } from "../types.js";
import { opencodeConfigContent } from "./config.js";
import { opencodeIdentity } from "./identity.js";
import { createOpencodeParser } from "./parser.js";
import { OPENCODE_QUIET_ENV, copyOpencodeSession, opencodeSessionRoots } from "./session-files.js";
import { opencodeSandbox } from "./sandbox.js";

export { parseOpencodeLimitText } from "./limit-text.js";
export { parseOpencodeAuthList } from "./identity.js";
export { classifyFailure, createOpencodeParser } from "./parser.js";
export { opencodeConfigContent } from "./config.js";

/**
 * argv for one headless turn (checked against 1.18.33):
 *   opencode run --format json --agent build|plan [-m provider/model] [-s <session id>]
 * The prompt always goes on stdin, never in argv: `opencode run` joins its message arguments
 * with spaces and wraps any argument containing a space in double quotes (the model would see
 * `"fix the test"` with the quotes), and it appends piped stdin to the message. Stdin also
 * keeps a prompt starting with '-' a prompt and lifts the 128 KiB limit of one argument, so
 * TurnInput.promptViaStdin changes nothing here.
 */
export function opencodeTurnArgs(input: Pick<TurnInput, "mode" | "model" | "resumeSessionId">): string[] {
  // --agent build even in Build mode: the user's config may make another agent the default.
  const args = ["run", "--format", "json", "--agent", input.mode === "plan" ? "plan" : "build"];
  if (input.model) args.push("-m", input.model);
  if (input.resumeSessionId) args.push("-s", input.resumeSessionId);
  return args;
}

/**
 * An added login's home is OpenCode's XDG_DATA_HOME (auth.json and opencode.db under
 * `<home>/opencode/`), and its config lives in `<home>/config/opencode/` (XDG_CONFIG_HOME), so
 * two logins share neither sign-in, sessions nor settings. XDG_DATA_HOME is the home variable
 * because the sign-in (`opencode auth login`, run with only that variable set) must land where
 * turns look for it. The Default login is the user's own XDG folders, untouched.
 */
export function opencodeHomeEnv(home: string): Record<string, string> {
  return { XDG_DATA_HOME: home, XDG_CONFIG_HOME: path.join(home, "config") };
}

export const opencodeHarness: Harness = {
  id: "opencode",
  displayName: "OpenCode",
  binaryName: "opencode",
  installHint: "npm install -g opencode-ai",
  homeVariable: "XDG_DATA_HOME",
  defaultHome: (env) => env.XDG_DATA_HOME || path.join(env.HOME || os.homedir(), ".local", "share"),
  // Session ids (ses_…) are made by OpenCode and named in every line of the stream.
  choosesSessionId: false,
  versionArgs: ["--version"],
  turnCommand(input: TurnInput): Command {
    const env: NodeJS.ProcessEnv = { ...input.env, ...OPENCODE_QUIET_ENV };
    if (input.loginHome !== undefined) Object.assign(env, opencodeHomeEnv(input.loginHome));
    const content = opencodeConfigContent(input.env.OPENCODE_CONFIG_CONTENT, input.mode, input.addDirs ?? []);
    if (content !== undefined) env.OPENCODE_CONFIG_CONTENT = content;
    return { file: input.binary, args: opencodeTurnArgs(input), cwd: input.cwd, env, input: input.prompt };
  },
  createParser: () => createOpencodeParser(),
  // `opencode auth login` (alias of `providers login`) picks a provider and signs in interactively.
  loginArgs: ["auth", "login"],
  identity: opencodeIdentity,
  // OpenCode's usage lives in opencode.db (SQLite, per message tokens and cost: Node 22's
  // node:sqlite could read it, still marked experimental there), and the providers it fronts report
  // no windows to it: tokens are not a %, so no quota source yet. Limits still reach the quota ledger as limit_hit events from the stream.
  quotaSources: [],
  quotaCoverage: "limits",
  sessionRoots: opencodeSessionRoots,
  copySession: copyOpencodeSession,
  // 1.18.33 could scope write and edit to the memory folder (`edit` rules match the path relative
  // to the worktree), but apply_patch, offered instead of them to gpt-* models, asks `edit` only
  // for each hunk's source path and writes a `*** Move to:` target unasked: no rule grants exactly
  // the memory folder, so the Planner stays fully read-only.
  plannerWritesNothing: true,
  sandbox: opencodeSandbox,

  approvals: "not interactive: `opencode run` auto-rejects every permission set to ask; refusals are logged as denials",
};
