import os from "node:os";
import path from "node:path";
import type { Command } from "../../core/foundation/process.js";
import type { Harness, TurnInput } from "../types.js";
import { claudeHooks } from "./hooks.js";
import { claudeContextWindow } from "./context-window.js";
import { claudeIdentity } from "./identity.js";
import { createClaudeLive } from "./live.js";
import { createClaudeParser } from "./parser.js";
import { quotaSources } from "./quota.js";
import { claudeTranscripts } from "./transcript.js";
import { claudeSessionRoots, copyClaudeSession } from "./session-files.js";
import { claudeSandbox } from "./sandbox.js";

export { parseClaudeLimitText } from "../shared/claude-limit-text.js";
export { createClaudeParser } from "./parser.js";
export { claudeProjectFolder } from "./session-files.js";

/** A path as a literal pattern: Claude's Edit(...) rules match paths the way .gitignore lines do. */
function literalPattern(dir: string): string {
  return dir.replace(/[\\*?[\]]/g, "\\$&");
}

/**
 * Permission flags. Build: acceptEdits lets the CLI write files under -p. Planner: plan mode makes
 * the CLI refuse writes itself, but in 2.1.332 it refuses them in --add-dir folders too, whatever
 * --allowedTools says (only its own plan file is exempt). So a Planner that keeps memory runs in
 * default mode: under -p a tool that needs permission is denied, reads and read-only Bash run as in
 * plan mode, and one Edit rule per memory folder (Write is an Edit for rules) allows writes there.
 * `//` starts an absolute path in a rule; a single `/` would be relative to the project. The deny
 * rule on the worktree wins over the login's own Edit allow rules, which plan mode ignores.
 * Reviewers get no memory folder and stay in plan mode.
 */
function permissionArgs(input: TurnInput): string[] {
  if (input.mode === "build") return ["--permission-mode", "acceptEdits"];
  const dirs = input.addDirs ?? [];
  if (dirs.length === 0) return ["--permission-mode", "plan"];
  return [
    "--permission-mode",
    "default",
    "--allowedTools",
    ...dirs.map((dir) => `Edit(/${literalPattern(dir)}/**)`),
    "--disallowedTools",
    `Edit(/${literalPattern(input.cwd)}/**)`,
    // Default mode does not tell the model it is planning, as plan mode's own reminder does.
    "--append-system-prompt",
    `You are in Planner mode: read, search and plan, and change nothing. Do not edit files, run commands that change anything, or make commits. The one exception is your memory folder (${dirs.join(", ")}): keep plan.md and dead-ends.md there current.`,
  ];
}

/**
 * argv for one headless turn. Checked against 2.1.332: `--` ends the options, so a prompt that
 * starts with "-" arrives verbatim, and `--add-dir` (variadic) cannot swallow the prompt.
 */
function turnCommand(input: TurnInput): Command {
  const args = ["-p", "--output-format", "stream-json", "--verbose", ...permissionArgs(input)];
  if (input.resumeSessionId) args.push("--resume", input.resumeSessionId);
  else if (input.newSessionId) args.push("--session-id", input.newSessionId);
  if (input.model) args.push("--model", input.model);
  for (const dir of input.addDirs ?? []) args.push("--add-dir", dir);
  // 2.1.332 offers a StructuredOutput tool, insists until the model calls it with valid input, and
  // puts that input in the result line's `structured_output` (the parser makes it the final text).
  if (input.outputSchema) args.push("--json-schema", JSON.stringify(input.outputSchema.schema));
  // Without a prompt argument, `claude -p` reads the prompt from stdin.
  if (!input.promptViaStdin) args.push("--", input.prompt);

  const env: NodeJS.ProcessEnv = { ...input.env };
  if (input.loginHome) env.CLAUDE_CONFIG_DIR = input.loginHome;
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
  quotaCoverage: "percent",
  sessionRoots: claudeSessionRoots,
  contextWindow: claudeContextWindow,
  transcripts: claudeTranscripts,
  live: createClaudeLive(turnCommand),
  sandbox: claudeSandbox,

  approvals: "interactive in Build turns: commands and questions wait for `offrun approve` / `offrun answer`",
  copySession: copyClaudeSession,
  sessionCompleteAtEnd: true,
  hooks: claudeHooks,
};
