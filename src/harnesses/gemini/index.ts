import os from "node:os";
import type { Command } from "../../core/foundation/process.js";
import type { Harness, TurnInput } from "../types.js";
import { geminiHooks } from "./hooks.js";
import { geminiContextWindow } from "./context-window.js";
import { geminiIdentity } from "./identity.js";
import { createGeminiParser } from "./parser.js";
import { quotaSources } from "./quota.js";
import { copyGeminiSession, geminiSessionRoots } from "./session-files.js";
import { writePlannerPolicy } from "./planner-policy.js";
import { geminiTranscripts } from "./transcript.js";
import { geminiSandbox } from "./sandbox.js";

export { parseGeminiLimitText, type GeminiLimitText } from "./limit-text.js";
export { classifyGeminiFailure, createGeminiParser } from "./parser.js";
export { copyGeminiSession, findGeminiSession, geminiSessionRoots } from "./session-files.js";

/**
 * argv for one headless turn (checked against 0.61.0 with `--help` and real runs):
 *   gemini --prompt=PROMPT -o stream-json --approval-mode auto_edit|plan [--skip-trust]
 *          [-m MODEL] [--session-id <uuid> | -r <session id>] [--include-directories D]...
 * `--prompt=` keeps a prompt that starts with "-" a prompt (yargs reads `-p -x` as a flag and
 * prints its help); an empty `--prompt=` makes the CLI read the prompt from stdin. Under -p the
 * CLI never asks: auto_edit registers the edit tools but not run_shell_command, plan refuses
 * writes by policy (both logged as denials). `--skip-trust` (only for a repository trusted in Offrun) trusts the worktree for this run only.
 * With `plannerPolicy` (a Planner that keeps memory, see planner-policy.ts) the mode is `default`
 * with that policy file instead of `plan`.
 */
export function geminiTurnArgs(
  input: Pick<
    TurnInput,
    "prompt" | "mode" | "model" | "addDirs" | "resumeSessionId" | "newSessionId" | "promptViaStdin" | "workspaceTrusted"
  >,
  plannerPolicy?: string,
): string[] {
  const args = [`--prompt=${input.promptViaStdin ? "" : input.prompt}`, "-o", "stream-json"];
  const mode = input.mode === "build" ? "auto_edit" : plannerPolicy ? "default" : "plan";
  args.push("--approval-mode", mode);
  // 0.61.0 refuses a folder it does not trust (a repository's .gemini/settings.json can start MCP
  // servers and hooks): Offrun tells it to skip that only where the user trusted the repository.
  if (input.workspaceTrusted) args.push("--skip-trust");
  // At the user tier; 0.61.0 then skips the login's own policies folder for this run.
  if (input.mode === "plan" && plannerPolicy) args.push("--policy", plannerPolicy);
  if (input.model) args.push("-m", input.model);
  // `-r` takes the session id the stream's init event names (also "latest" or an index).
  if (input.resumeSessionId) args.push("-r", input.resumeSessionId);
  else if (input.newSessionId) args.push("--session-id", input.newSessionId);
  // Each must exist: 0.61.0 stops with "Directory does not exist" otherwise.
  for (const dir of input.addDirs ?? []) args.push("--include-directories", dir);
  return args;
}

/** The CLI keeps its state in `<GEMINI_CLI_HOME or the user's home>/.gemini/`. */
function geminiDefaultHome(env: NodeJS.ProcessEnv): string {
  return env.GEMINI_CLI_HOME || env.HOME || os.homedir();
}

/** Default mode does not tell the model it is planning, as plan mode's own system prompt does. */
function plannerNote(dirs: readonly string[]): string {
  return `(You are in Planner mode: read, search and plan, and change nothing. Do not edit files or run commands. The one exception is your memory folder (${dirs.join(", ")}): keep plan.md and dead-ends.md there current.)`;
}

export const geminiHarness: Harness = {
  id: "gemini",
  displayName: "Gemini CLI",
  binaryName: "gemini",
  installHint: "npm install -g @google/gemini-cli",
  homeVariable: "GEMINI_CLI_HOME",
  defaultHome: geminiDefaultHome,
  choosesSessionId: true,
  versionArgs: ["--version"],
  turnCommand(input: TurnInput): Command {
    const env: NodeJS.ProcessEnv = { ...input.env };
    if (input.loginHome) env.GEMINI_CLI_HOME = input.loginHome;
    const dirs = input.mode === "plan" ? (input.addDirs ?? []) : [];
    // Reviewers have no memory folder and stay in plan mode.
    const policy = dirs.length > 0 ? writePlannerPolicy(input.loginHome ?? geminiDefaultHome(env), dirs) : undefined;
    const prompt = policy ? `${plannerNote(dirs)}\n\n${input.prompt}` : input.prompt;
    return {
      file: input.binary,
      args: geminiTurnArgs({ ...input, prompt }, policy),
      cwd: input.cwd,
      env,
      ...(input.promptViaStdin ? { input: prompt } : {}),
    };
  },
  createParser: () => createGeminiParser(),
  // 0.61.0 has no login subcommand: a bare `gemini` opens its auth dialog on first run.
  loginArgs: [],
  identity: geminiIdentity,
  // Limit texts in the stream are recorded by Offrun itself (limit_hit events). 0.61.0's chat
  // files keep no limit records (a usage-limit run's file holds only the prompt), only each
  // reply's tokens: a daily token count, never a % (quota.ts).
  quotaSources,
  quotaCoverage: "limits",
  sessionRoots: geminiSessionRoots,
  transcripts: geminiTranscripts,
  contextWindow: geminiContextWindow,
  sandbox: geminiSandbox,

  approvals:
    "not interactive in headless mode: Build auto-approves edits; other tools are refused and logged as denials",
  copySession: copyGeminiSession,
  hooks: geminiHooks,
};
