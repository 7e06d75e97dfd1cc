import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { OffrunError } from "../../core/foundation/errors.js";
import type { Command } from "../../core/foundation/process.js";
import type { Harness, TurnInput } from "../types.js";
import { createGeminiParser } from "./parser.js";

/**
 * Antigravity CLI (`agy`), Google's successor to Gemini CLI for Google sign-ins. It is not on npm
 * and was never run here: EVERY flag below comes from public documentation only, none is verified.
 *   -p PROMPT                        print (headless) mode: hexdocs.pm/agy, agy 1.1.8 release notes
 *   --output-format stream-json      agy 1.1.8 release notes ("init, step_update, result" events)
 *   --conversation <id>              resume a conversation: hexdocs.pm/agy, agent-intern's tool docs
 *                                    (HARNESSES.md says `--resume <session_id>`; a report on agy
 *                                    1.0.0's --help says --resume is not defined)
 *   --add-dir DIR                    extra workspace: hexdocs.pm/agy
 *   --print-timeout 60m              print mode stops after 5 minutes by default: hexdocs.pm/agy
 * agy documents no read-only mode and no edits-only mode (`--dangerously-skip-permissions` allows
 * everything), so neither is passed: Planner relies on Offrun's check that the worktree is
 * unchanged. `-p` is a Go string flag, which takes the next argument as its value even when it
 * starts with "-". The stream is parsed with Gemini CLI's parser: lines it does not know (agy's
 * `step_update`) are skipped, not failures.
 */
const AGY_PRINT_TIMEOUT = "60m";

export function agyTurnArgs(input: Pick<TurnInput, "prompt" | "addDirs" | "resumeSessionId">): string[] {
  const args = ["-p", input.prompt, "--output-format", "stream-json", "--print-timeout", AGY_PRINT_TIMEOUT];
  if (input.resumeSessionId) args.push("--conversation", input.resumeSessionId);
  for (const dir of input.addDirs ?? []) args.push("--add-dir", dir);
  return args;
}

/** `~/.gemini/antigravity-cli/`: `brain/<conversation id>/` and `conversations/<id>.pb` (documentation only). */
function agyStateDir(home: string): string {
  return path.join(home, ".gemini", "antigravity-cli");
}

export const agyHarness: Harness = {
  id: "agy",
  displayName: "Antigravity CLI",
  binaryName: "agy",
  installHint: "curl -fsSL https://antigravity.google/cli/install.sh | bash",
  // agy documents no variable that moves its state; it lives under ~/.gemini/antigravity-cli, so
  // an added login is a separate HOME. Its sign-in is in the OS keyring, which HOME does not move.
  homeVariable: "HOME",
  defaultHome: (env) => env.HOME || os.homedir(),
  choosesSessionId: false,
  versionArgs: ["--version"],
  turnCommand(input: TurnInput): Command {
    const env: NodeJS.ProcessEnv = { ...input.env };
    if (input.accountHome) env.HOME = input.accountHome;
    // No documented stdin prompt: a prompt too long for one argument fails to spawn (E2BIG).
    return { file: input.binary, args: agyTurnArgs(input), cwd: input.cwd, env };
  },
  createParser: () =>
    createGeminiParser({ cliName: "Antigravity CLI", loginHint: "Run `agy` in a terminal and sign in with Google" }),
  // First-time sign-in is interactive (browser OAuth) in a bare `agy`.
  loginArgs: [],
  async identity() {
    return {
      signedIn: undefined,
      note: "agy keeps its sign-in in the OS keyring and documents no status command.",
    };
  },
  // Limit texts in the stream are recorded by Offrun itself; agy documents no quota files.
  quotaSources: [],
  quotaCoverage: "limits",
  sessionRoots: (home) => [path.join(agyStateDir(home), "brain")],
  sandbox: { hosts: ["*.googleapis.com", "accounts.google.com"] },
  approvals: "not interactive in headless mode (documentation only): agy waits for approvals it cannot get",
  async copySession({ fromHome, toHome, sessionId }) {
    const from = agyStateDir(fromHome);
    const to = agyStateDir(toHome);
    const brain = path.join(from, "brain", sessionId);
    if (
      !(await fs.stat(brain).then(
        (s) => s.isDirectory(),
        () => false,
      ))
    ) {
      throw new OffrunError("not_found", `agy conversation ${sessionId} is not under ${path.join(from, "brain")}.`);
    }
    await fs.cp(brain, path.join(to, "brain", sessionId), { recursive: true, force: true });
    const record = path.join("conversations", `${sessionId}.pb`);
    await fs.mkdir(path.join(to, "conversations"), { recursive: true, mode: 0o700 });
    await fs.copyFile(path.join(from, record), path.join(to, record)).catch(() => undefined);
  },
};
