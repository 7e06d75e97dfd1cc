import os from "node:os";
import path from "node:path";
import type { Command } from "../../core/process.js";
import type { Harness, TurnInput } from "../types.js";
import { claudeIdentity } from "./identity.js";
import { createClaudeLive } from "./live.js";
import { createClaudeParser } from "./parser.js";
import { quotaSources } from "./quota.js";
import { claudeSessionRoots, copyClaudeSession } from "./session-files.js";

export { parseClaudeLimitText } from "./limit-text.js";
export { createClaudeParser } from "./parser.js";
export { claudeProjectFolder } from "./session-files.js";

/**
 * argv for one headless turn. Checked against 2.1.332: `--` ends the options, so a prompt that
 * starts with "-" arrives verbatim, and `--add-dir` (variadic) cannot swallow the prompt.
 */
function turnCommand(input: TurnInput): Command {
  const args = ["-p", "--output-format", "stream-json", "--verbose"];
  // acceptEdits lets Build write files under -p; plan mode makes the CLI refuse writes itself.
  args.push("--permission-mode", input.mode === "build" ? "acceptEdits" : "plan");
  if (input.resumeSessionId) args.push("--resume", input.resumeSessionId);
  else if (input.newSessionId) args.push("--session-id", input.newSessionId);
  if (input.model) args.push("--model", input.model);
  for (const dir of input.addDirs ?? []) args.push("--add-dir", dir);
  // Without a prompt argument, `claude -p` reads the prompt from stdin.
  if (!input.promptViaStdin) args.push("--", input.prompt);

  const env: NodeJS.ProcessEnv = { ...input.env };
  if (input.accountHome) env.CLAUDE_CONFIG_DIR = input.accountHome;
  return { file: input.binary, args, cwd: input.cwd, env, ...(input.promptViaStdin ? { input: input.prompt } : {}) };
}

export const claudeHarness: Harness = {
  id: "claude",
  displayName: "Claude Code",
  binaryName: "claude",
  installHint: "npm install -g @anthropic-ai/claude-code",
  homeVariable: "CLAUDE_CONFIG_DIR",
  // The CLI itself honours CLAUDE_CONFIG_DIR before falling back to ~/.claude.
  defaultHome: (env) => env.CLAUDE_CONFIG_DIR || path.join(env.HOME || os.homedir(), ".claude"),
  choosesSessionId: true,
  turnCommand,
  createParser: createClaudeParser,
  versionArgs: ["--version"],
  // `claude auth login` (2.1.332) signs in and exits, without the first-run screens of a bare
  // `claude`; it opens the browser and also accepts a pasted code.
  loginArgs: ["auth", "login"],
  identity: claudeIdentity,
  quotaSources,
  sessionRoots: claudeSessionRoots,
  live: createClaudeLive(turnCommand),
  approvals: "interactive in Build turns: commands and questions wait for `offrun approve` / `offrun answer`",
  copySession: copyClaudeSession,
};
