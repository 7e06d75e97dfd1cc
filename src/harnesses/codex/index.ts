import os from "node:os";
import path from "node:path";
import type { Command } from "../../core/foundation/process.js";
import type { Harness, TurnInput } from "../types.js";
import { codexHooks } from "./hooks.js";
import { codexContextWindow } from "./context-window.js";
import { codexIdentity } from "./identity.js";
import { codexLive } from "./live.js";
import { createCodexParser } from "./parser.js";
import { quotaSources } from "./quota.js";
import { codexSessionRoots, copyCodexSession } from "./session-files.js";
import { codexTranscripts } from "./transcript.js";
import { codexSandbox } from "./sandbox.js";

export { parseCodexLimitText } from "../shared/codex-limit-text.js";
export { CODEX_NOT_LOGGED_IN_MESSAGE, classifyFailure, createCodexParser } from "./parser.js";
export { CODEX_ROLLOUT_SOURCE, findCodexRollout, readCodexRolloutQuota } from "./rollout.js";

/**
 * argv for one headless turn (checked against 0.171.0):
 *   codex exec --json -s <sandbox> -C <cwd> [-m M] [--add-dir D]... [resume <thread_id>] -- PROMPT
 * `exec resume` accepts neither `-s`, `-C` nor `--add-dir` after `resume`, but the `exec`
 * options before the subcommand apply to the resumed turn (the sandbox is not inherited
 * from the first turn, so it is passed every time). `--` keeps a prompt starting with '-'
 * a prompt. Build uses `workspace-write`: the bubblewrap sandbox works here (also as root)
 * and lets Codex write the worktree but not `.git` or anything outside it.
 */
export function codexTurnArgs(
  input: Pick<
    TurnInput,
    | "prompt"
    | "mode"
    | "cwd"
    | "model"
    | "addDirs"
    | "resumeSessionId"
    | "promptViaStdin"
    | "outputSchema"
    | "sandboxed"
  >,
): string[] {
  const own = input.sandboxed ? ["-s", "danger-full-access"] : sandboxArgs(input.mode, input.addDirs ?? []);
  const args = ["exec", "--json", ...own, "-C", input.cwd];
  if (input.model) args.push("-m", input.model);
  // Every --add-dir must exist: a missing one makes bubblewrap fail every command of the turn.
  for (const dir of input.addDirs ?? []) args.push("--add-dir", dir);
  // 0.171.0 reads the schema from a file and sends it as the response format: the final
  // agent_message is then the JSON itself.
  if (input.outputSchema) args.push("--output-schema", input.outputSchema.file);
  if (input.resumeSessionId) args.push("resume", input.resumeSessionId);
  // "-" makes Codex read the prompt from stdin (for prompts too long for one argument).
  args.push("--", input.promptViaStdin ? "-" : input.prompt);
  return args;
}

/**
 * Inside Offrun's sandbox Codex's own is off (`danger-full-access`): 0.171.0's bubblewrap cannot
 * make a namespace inside another ("No permissions to create new namespace"), so every command
 * would fail; Offrun's sandbox then enforces the mode, a Planner's worktree read-only included.
 * Outside it, Build: `workspace-write`. Planner: `read-only`, which in 0.171.0 keeps `--add-dir` folders
 * read-only too; a Planner that keeps memory gets a permission profile instead (`-c`, inline TOML)
 * that extends the built-in `:read-only` with write access to exactly its memory folders: patches
 * and commands write there and nowhere else. Passing `-s` would switch profiles off, so it is left
 * out; a `sandbox_mode` in the login's config.toml does not (checked). Reviewers have no memory
 * folder and keep `read-only`.
 */
function sandboxArgs(mode: TurnInput["mode"], addDirs: readonly string[]): string[] {
  if (mode === "build") return ["-s", "workspace-write"];
  if (addDirs.length === 0) return ["-s", "read-only"];
  // A JSON string is a valid TOML basic string, so any path is quoted safely as a key.
  const writable = addDirs.map((dir) => `${JSON.stringify(dir)} = "write"`).join(", ");
  return [
    "-c",
    `default_permissions="${PLANNER_PROFILE}"`,
    "-c",
    `permissions.${PLANNER_PROFILE}={ extends = ":read-only", filesystem = { ${writable} } }`,
  ];
}

const PLANNER_PROFILE = "offrun-planner";

export const codexHarness: Harness = {
  id: "codex",
  displayName: "Codex",
  binaryName: "codex",
  installHint: "npm install -g @openai/codex",
  homeVariable: "CODEX_HOME",
  // The CLI itself honours CODEX_HOME before falling back to ~/.codex.
  defaultHome: (env) => env.CODEX_HOME || path.join(env.HOME || os.homedir(), ".codex"),
  choosesSessionId: false,
  versionArgs: ["--version"],
  turnCommand(input: TurnInput): Command {
    const env = input.loginHome === undefined ? { ...input.env } : { ...input.env, CODEX_HOME: input.loginHome };
    return {
      file: input.binary,
      args: codexTurnArgs(input),
      cwd: input.cwd,
      env,
      ...(input.promptViaStdin ? { input: input.prompt } : {}),
    };
  },
  // The home lets the parser read the thread's rollout for writes the sandbox refused.
  createParser: (input) =>
    createCodexParser(input ? { home: input.loginHome ?? codexHarness.defaultHome(input.env) } : {}),
  // `codex login` (0.171.0) runs the browser sign-in on a local port; `--device-auth` is for
  // machines without a browser and is left to the user.
  loginArgs: ["login"],
  identity: codexIdentity,
  quotaSources,
  quotaCoverage: "percent",
  sessionRoots: codexSessionRoots,
  contextWindow: codexContextWindow,
  transcripts: codexTranscripts,
  live: codexLive,
  sandbox: codexSandbox,

  approvals:
    "interactive in Build turns (app-server): commands and questions wait for `offrun approve` / `offrun answer`",
  copySession: copyCodexSession,
  hooks: codexHooks,
};
