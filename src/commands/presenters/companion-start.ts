import path from "node:path";
import { CompanionClient } from "../../core/protocol/client.js";
import { OffrunError, describeError, isOffrunError } from "../../core/foundation/errors.js";
import { runCommand, type Command } from "../../core/foundation/process.js";
import { companionLaunch } from "./companion-launch.js";

/**
 * "Start Companion" in a face that is not the CLI (the Raycast extension). The companion is a
 * service, never a child of the face: on macOS it is installed as the launchd login agent
 * (`offrun companion install`); where that is off or launchctl does not answer, `offrun companion
 * start` runs it in the background. Either way it gets the user's login environment (the PATH their
 * terminal has, where the agent CLIs are), not the GUI app's.
 */

/** What a user types in a terminal to do the same. */
export const START_COMPANION_COMMAND = "offrun companion install";

const LOGIN_SHELL_TIMEOUT_MS = 10_000;
const OFFRUN_TIMEOUT_MS = 30_000;
const CONNECT_TIMEOUT_MS = 15_000;
const MARK = "__offrun_env__";

export interface StartedCompanion {
  /** "service": the login service was installed and loaded; "started": `offrun companion start`. */
  how: "service" | "started";
  /** One line for a toast. */
  message: string;
}

/**
 * The environment of the user's login shell (`$SHELL -ilc`), read by running this Node inside it.
 * Undefined when the shell fails or takes too long: the caller keeps the face's own environment.
 */
export async function loginEnvironment(
  env: NodeJS.ProcessEnv,
  nodePath: string,
  timeoutMs = LOGIN_SHELL_TIMEOUT_MS,
): Promise<NodeJS.ProcessEnv | undefined> {
  const shell = env.SHELL?.trim() || (process.platform === "darwin" ? "/bin/zsh" : "/bin/sh");
  // The node path and the script go in as arguments ($0 and $1; fish calls them $argv): nothing is
  // pasted into the command string.
  const script = `process.stdout.write(${JSON.stringify(MARK)} + JSON.stringify(process.env) + ${JSON.stringify(MARK)})`;
  const command = path.basename(shell) === "fish" ? "exec $argv[1] -e $argv[2]" : 'exec "$0" -e "$1"';
  const result = await runCommand({ file: shell, args: ["-ilc", command, nodePath, script], env }, { timeoutMs }).catch(
    () => undefined,
  );
  if (!result || result.timedOut || result.exitCode !== 0) return undefined;
  // An interactive profile may print a banner around what we asked for.
  const parts = result.stdout.split(MARK);
  if (parts.length < 3) return undefined;
  try {
    const parsed = JSON.parse(parts[1]!) as Record<string, unknown>;
    return Object.fromEntries(Object.entries(parsed).filter((e): e is [string, string] => typeof e[1] === "string"));
  } catch {
    return undefined;
  }
}

/**
 * The login shell's environment with the face's own Offrun settings on top (OFFRUN_HOME and the
 * binary paths come from the preferences: they win over the shell's); the face's when the shell fails.
 */
export async function faceLoginEnvironment(env: NodeJS.ProcessEnv, nodePath: string): Promise<NodeJS.ProcessEnv> {
  const login = await loginEnvironment(env, nodePath);
  return login ? { ...login, ...pick(env, isFaceSetting) } : env;
}

/** Installs (or starts) the companion and waits until it answers. */
export async function startCompanionService(options: {
  offrunPath?: string;
  nodePath: string;
  env: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
}): Promise<StartedCompanion> {
  const env = await faceLoginEnvironment(options.env, options.nodePath);
  const launch = await companionLaunch({ offrunPath: options.offrunPath, nodePath: options.nodePath, env });
  // launch runs `... companion run`; the same program, other arguments.
  const offrun = (...args: string[]): Command => ({ ...launch, args: [...launch.args.slice(0, -2), ...args] });

  let how: StartedCompanion["how"] = "started";
  let message = "Started the companion in the background.";
  // The extension runs on macOS, where launchd keeps the companion; OFFRUN_NO_LOGIN_SERVICE (set by
  // the tests, or a user who wants no login item) starts it in the background instead.
  const platform = options.platform ?? process.platform;
  if (platform === "darwin" && !options.env.OFFRUN_NO_LOGIN_SERVICE) {
    const installed = await runCommand(offrun("companion", "install", "--json"), { timeoutMs: OFFRUN_TIMEOUT_MS });
    const result = parseJson(installed.stdout) as { manual?: string[]; file?: string } | undefined;
    if (installed.exitCode === 0 && result && result.manual === undefined) {
      how = "service";
      message = `Installed the companion as a login service (${result.file ?? "launchd"}): it runs now and at every login.`;
    }
  }
  if (how === "started") {
    const started = await runCommand(offrun("companion", "start", "--json"), { timeoutMs: OFFRUN_TIMEOUT_MS });
    if (started.exitCode !== 0) {
      throw new OffrunError(
        "companion_unavailable",
        `The companion did not start: ${firstLine(started.stderr) || firstLine(started.stdout) || `exit ${String(started.exitCode)}`}. Run \`offrun companion run\` in a terminal to see why.`,
      );
    }
  }
  await waitForCompanion(CONNECT_TIMEOUT_MS);
  return { how, message };
}

async function waitForCompanion(timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      (await CompanionClient.connect()).close();
      return;
    } catch (error) {
      if (!isOffrunError(error, "companion_unavailable")) throw error;
      last = error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new OffrunError(
    "companion_unavailable",
    `The companion was started but does not answer (${describeError(last)}). Run \`offrun companion status\` in a terminal.`,
  );
}

function isFaceSetting(name: string): boolean {
  return (
    ["OFFRUN_HOME", "OFFRUN_NO_LOGIN_SERVICE", "OFFRUN_LINK_DIR"].includes(name) || /^OFFRUN_[A-Z0-9_]+_BIN$/.test(name)
  );
}

function pick(env: NodeJS.ProcessEnv, keep: (name: string) => boolean): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name, value]) => keep(name) && value !== undefined));
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function firstLine(text: string): string {
  return text.trim().split("\n")[0] ?? "";
}
