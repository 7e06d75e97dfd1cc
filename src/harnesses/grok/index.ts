import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { LoginIdentity } from "../../core/foundation/login-model.js";
import { describeError, OffrunError } from "../../core/foundation/errors.js";
import type { Command } from "../../core/foundation/process.js";
import type { ProcessRunner } from "../../core/foundation/runner.js";
import { runAcpTurn } from "../acp/index.js";
import type { Harness, LiveTurnIO, TurnInput } from "../types.js";
import { grokAcpDefinition as definition } from "./acp.js";
import { assertGrokBuild, identifyGrokBinary } from "./detect.js";
import { grokHooks } from "./hooks.js";
import { createGrokParser } from "./parser.js";

export { assertGrokBuild, identifyGrokBinary } from "./detect.js";
export { createGrokParser } from "./parser.js";

/*
 * Grok Build runs over ACP (`grok agent stdio`, acp.ts) whenever Offrun can ask the user, in Build
 * and in Planner: its headless mode answers every permission prompt with "cancelled"
 * (xai-grok-pager/src/headless.rs), so a headless Build turn that needs one ends cancelled. The
 * one-way turn below is what is left for a caller that cannot ask. Flags from the user guide
 * (crates/codegen/xai-grok-pager/docs/user-guide/14-headless-mode.md):
 *   grok -p PROMPT --output-format streaming-json    headless turn
 *   --prompt-file FILE                                prompt from a file (used with /dev/stdin)
 *   -r <session id>, -m MODEL, --permission-mode default|acceptEdits|plan|bypassPermissions|…
 *   GROK_HOME (default ~/.grok), sessions under $GROK_HOME/sessions/<url-encoded cwd>/<id>/
 */

/** The version of xAI's published source every fact above was read from, and the oldest that has them all. */
export const GROK_VERIFIED_VERSION = "1.0.6";
export const GROK_MINIMUM_VERSION = "1.0.0";

/** argv of one headless turn (flags from documentation only, see above). */
export function grokTurnArgs(
  input: Pick<TurnInput, "prompt" | "mode" | "model" | "resumeSessionId" | "promptViaStdin">,
): string[] {
  // A prompt that starts with "-" could read as a flag, and a long one does not fit in argv:
  // both go in on stdin through --prompt-file /dev/stdin.
  const viaStdin = input.promptViaStdin === true || input.prompt.startsWith("-");
  const args = viaStdin ? ["--prompt-file", "/dev/stdin"] : ["-p", input.prompt];
  args.push("--output-format", "streaming-json");
  // Headless runs cannot ask, so acceptEdits is as far as a one-way Build turn can go; the
  // first prompt it would need ends the turn cancelled, read as a denial (parser.ts).
  args.push("--permission-mode", input.mode === "build" ? "acceptEdits" : "plan");
  if (input.resumeSessionId) args.push("-r", input.resumeSessionId);
  if (input.model) args.push("-m", input.model);
  return args;
}

function turnCommand(input: TurnInput): Command {
  const env: NodeJS.ProcessEnv = { ...input.env };
  if (input.loginHome) env.GROK_HOME = input.loginHome;
  const viaStdin = input.promptViaStdin === true || input.prompt.startsWith("-");
  return {
    file: input.binary,
    args: grokTurnArgs(input),
    cwd: input.cwd,
    env,
    ...(viaStdin ? { input: input.prompt } : {}),
  };
}

/** Live turns check the binary first: the community `grok` would otherwise sit silent on ACP. */
async function runTurn(input: TurnInput, io: LiveTurnIO): Promise<void> {
  try {
    await assertGrokBuild(input.binary, io, GROK_MINIMUM_VERSION);
  } catch (error) {
    const kind = error instanceof OffrunError ? error.kind : "not_installed";
    const message = describeError(error);
    io.emit([
      { type: "error", kind, message },
      { type: "turn_end", outcome: "failed", reason: message },
    ]);
    return;
  }
  await runAcpTurn(definition, input, io);
}

async function identity(
  binary: string | undefined,
  _env: NodeJS.ProcessEnv,
  _home: string,
  runner: ProcessRunner,
): Promise<LoginIdentity> {
  if (binary) {
    const kind = await identifyGrokBinary(binary, runner).catch(() => undefined);
    if (kind && !kind.isGrokBuild) return { signedIn: undefined, note: `${binary} is ${kind.what}, not Grok Build.` };
  }
  // Grok Build has no documented status command, and Offrun never opens auth.json.
  return {
    signedIn: undefined,
    note: "Grok Build has no sign-in status command; a turn says when it is not signed in.",
  };
}

/** Copies `sessions/<cwd folder>/<id>/` as it is: the cwd's folder name is found, not computed. */
async function copySession(request: { fromHome: string; toHome: string; sessionId: string }): Promise<void> {
  const root = path.join(request.fromHome, "sessions");
  const folders = await fs.readdir(root).catch(() => [] as string[]);
  for (const folder of folders) {
    const from = path.join(root, folder, request.sessionId);
    if (!(await fs.stat(from).catch(() => undefined))?.isDirectory()) continue;
    await fs.cp(from, path.join(request.toHome, "sessions", folder, request.sessionId), { recursive: true });
    return;
  }
  throw new OffrunError("not_found", `Grok Build session ${request.sessionId} is not under ${root}.`);
}

export const grokHarness: Harness = {
  id: "grok",
  displayName: "Grok Build",
  binaryName: "grok",
  installHint: definition.installHint,
  homeVariable: "GROK_HOME",
  defaultHome: (env) => env.GROK_HOME || path.join(env.HOME || os.homedir(), ".grok"),
  choosesSessionId: false,
  turnCommand,
  createParser: createGrokParser,
  versionArgs: ["--version"],
  loginArgs: ["login"],
  identity,
  // Grok Build bills monthly credits (docs/harnesses/grok.md); no local or CLI source of the
  // balance is known (its session files are documented only, never seen), so Offrun has none:
  // limits are recorded from Offrun's own turns, when their error reads as a usage limit (parser.ts).
  quotaSources: [],
  quotaCoverage: "limits",
  sessionRoots: (home) => [path.join(home, "sessions")],
  copySession,
  live: { runTurn },
  // Planner turns go over ACP too: its plan mode asks (exit_plan_mode) where headless approves.
  liveOnly: true,
  minimumVersion: {
    version: GROK_MINIMUM_VERSION,
    verified: `from the vendor's published source (xai-org/grok-build ${GROK_MINIMUM_VERSION} to ${GROK_VERIFIED_VERSION}), not run here`,
  },
  sandbox: {
    hosts: definition.hosts ?? [],
    // Run by the next plain `grok`: its config (MCP servers, providers), the managed config, hooks
    // and plugins (xai-org/grok-build's user guide, 10-hooks.md; not run here).
    executable: (home) => ({
      files: ["config.toml", "managed_config.toml"].map((entry) => path.join(home, entry)),
      folders: ["hooks", "plugins"].map((entry) => path.join(home, entry)),
    }),
    env: ["GROK_*", "XAI_*"],
  },
  approvals:
    "interactive over ACP (`grok agent stdio`), with its questions and plan approvals; headless turns cannot ask",
  hooks: grokHooks,
};
