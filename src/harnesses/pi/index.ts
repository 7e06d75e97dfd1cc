import os from "node:os";
import path from "node:path";
import type { Command } from "../../core/foundation/process.js";
import type { Harness, TurnInput } from "../types.js";
import { piIdentity } from "./identity.js";
import { createPiParser } from "./parser.js";
import { copyPiSession, piSessionRoots } from "./session-files.js";
import { quotaSources } from "./quota.js";
import { piTranscripts } from "./transcript.js";
import { piSandbox } from "./sandbox.js";

export { parsePiLimitText } from "./limit-text.js";
export { parsePiModelList } from "./identity.js";
export { classifyFailure, createPiParser } from "./parser.js";
export { findPiSession, piSessionFolder } from "./session-files.js";

/** Planner's tools: reading and searching only (no write, edit or bash). */
export const PI_PLANNER_TOOLS = "read,grep,find,ls";

/**
 * argv for one headless turn (checked against 0.73.1):
 *   pi -p --mode json [--model M] [--session <id>] [--tools read,grep,find,ls]
 * The prompt always goes on stdin: 0.73.1 has no `--` and rejects a message starting with '-'
 * ("Error: Unknown option: -Run …"), and `-p` with no message argument reads the message from
 * piped stdin, which also lifts the 128 KiB limit of one argument (promptViaStdin changes
 * nothing here). `--tools` is an allow-list that also drops extension and custom tools.
 */
export function piTurnArgs(input: Pick<TurnInput, "mode" | "model" | "resumeSessionId">): string[] {
  const args = ["-p", "--mode", "json"];
  if (input.model) args.push("--model", input.model);
  if (input.resumeSessionId) args.push("--session", input.resumeSessionId);
  if (input.mode === "plan") args.push("--tools", PI_PLANNER_TOOLS);
  return args;
}

export const piHarness: Harness = {
  id: "pi",
  displayName: "Pi",
  binaryName: "pi",
  installHint: "npm install -g @mariozechner/pi-coding-agent",
  homeVariable: "PI_CODING_AGENT_DIR",
  defaultHome: (env) => env.PI_CODING_AGENT_DIR || path.join(env.HOME || os.homedir(), ".pi", "agent"),
  // Pi makes its own session ids (UUIDv7) and prints them in the first line.
  choosesSessionId: false,
  versionArgs: ["--version"],
  turnCommand(input: TurnInput): Command {
    const env: NodeJS.ProcessEnv = { ...input.env };
    if (input.loginHome !== undefined) env.PI_CODING_AGENT_DIR = input.loginHome;
    return { file: input.binary, args: piTurnArgs(input), cwd: input.cwd, env, input: input.prompt };
  },
  createParser: () => createPiParser(),
  // 0.73.1 has no login subcommand: sign-in is `/login` inside the interactive TUI this starts.
  loginArgs: [],
  identity: piIdentity,
  // 0.73.1's session files carry each reply's tokens and any usage-limit error text, but no
  // provider window: limits (with their reset) and a token estimate, never a used % (quota.ts).
  // Offrun's own runs also report limits as limit_hit events from the stream.
  quotaSources,
  quotaCoverage: "limits",
  sessionRoots: piSessionRoots,
  transcripts: piTranscripts,
  copySession: copyPiSession,
  // 0.73.1 has no permission system: `--tools` allows a tool everywhere or nowhere, with no path
  // scope, so a Planner cannot be given write to its memory folder without the worktree too.
  plannerWritesNothing: true,
  sandbox: piSandbox,

  approvals: "none: Pi has no permission prompts; Planner gives it only the read, grep, find and ls tools",
};
