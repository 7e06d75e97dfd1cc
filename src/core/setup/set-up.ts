import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import * as z from "zod";
import { CompanionClient } from "../protocol/client.js";
import type { PingResult } from "../protocol/protocol.js";
import { serviceFilePath } from "../companion/service.js";
import { shellLine } from "../foundation/shell-quote.js";
import { describeError } from "../foundation/errors.js";
import { offrunHome, userPaths } from "../foundation/paths.js";
import { CLI_INSTALL_COMMAND, SANDBOX_RUNTIME } from "../foundation/install-commands.js";
import { runCommand } from "../foundation/process.js";
import { CLI_EXTERNAL_PACKAGES, bundledCliVersion, copyBundledCli } from "./bundle.js";
import {
  MIN_NODE,
  NODE_DOWNLOAD_URL,
  NODE_INSTALL_COMMAND,
  NODE_PLACES,
  NO_NODE_EXIT,
  launcherPaths,
  stablePackageDir,
  writeLauncher,
} from "./launcher.js";

/**
 * Set Up Offrun (the Raycast command) and `offrun setup`: copy the bundled CLI to
 * ~/.offrun/lib/offrun (`offrun setup` uses its own package where it is), write the launcher
 * ~/.offrun/bin/offrun, check that it finds a Node, link it into a folder on PATH, and install the
 * companion's login service through it. Each step says how it went; a step that cannot be done
 * says what to run instead. Running it again repeats it safely.
 */

export { CLI_INSTALL_COMMAND };

export const SETUP_STEPS = ["cli", "launcher", "node", "link", "service"] as const;
export type SetupStepId = (typeof SETUP_STEPS)[number];

export interface SetupStep {
  id: SetupStepId;
  /** "done"; "warning": done, with something to know or do; "failed"; "skipped": an earlier step failed. */
  status: "done" | "warning" | "failed" | "skipped";
  title: string;
  /** One or two sentences: what happened, or why not. */
  detail: string;
  /** A command that fixes what is missing, for "Copy Install Command". */
  fix?: string;
}

export interface SetupResult {
  /** Every step done (warnings included): `offrun` runs and the companion is set to start at login. */
  ok: boolean;
  launcher: string;
  steps: SetupStep[];
}

export interface SetupOptions {
  /** A folder holding the bundled CLI: bin/offrun.js, build/, package.json. */
  source: string;
  env: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  /** Where to link `offrun`, first usable wins (default: LINK_FOLDERS). */
  linkFolders?: string[];
  /** Where the launcher looks for Node after OFFRUN_NODE and PATH (default: NODE_PLACES). */
  nodePlaces?: readonly string[];
  /**
   * Run the CLI where it is instead of copying it (`offrun setup` of an npm or Homebrew install,
   * which upgrades in place: a copy would keep the old version running). The extension copies:
   * its folder is replaced at each of its updates.
   */
  inPlace?: boolean;
}

/**
 * Where `offrun` is linked: OFFRUN_LINK_DIR when set (a folder of the user's choice; the tests
 * set it), else /usr/local/bin (on PATH by default on macOS through /etc/paths, and on most Linux
 * systems), Homebrew's, then ~/.local/bin.
 */
export function linkFolders(env: NodeJS.ProcessEnv): string[] {
  const chosen = env.OFFRUN_LINK_DIR?.trim();
  if (chosen) return [path.resolve(chosen)];
  return ["/usr/local/bin", "/opt/homebrew/bin", path.join(env.HOME || os.homedir(), ".local", "bin")];
}

const RUN_TIMEOUT_MS = 30_000;

export async function setUpOffrun(options: SetupOptions): Promise<SetupResult> {
  const { env } = options;
  const { launcher, lib } = launcherPaths(env);
  const steps: SetupStep[] = [];
  const finish = (): SetupResult => {
    for (const id of SETUP_STEPS.filter((id) => !steps.some((s) => s.id === id))) {
      steps.push({ id, status: "skipped", title: TITLES[id], detail: "Not tried: an earlier step failed." });
    }
    return { ok: steps.every((s) => s.status === "done" || s.status === "warning"), launcher, steps };
  };

  let packageDir = lib;
  let cliVersion = "";
  try {
    const copied = options.inPlace
      ? { dir: await stablePackageDir(options.source), version: await bundledCliVersion(options.source), missing: [] }
      : await copyBundledCli(options.source, lib);
    packageDir = copied.dir;
    cliVersion = copied.version;
    const missing = CLI_EXTERNAL_PACKAGES.filter((p) => copied.missing.includes(p.name));
    const onlySandbox = missing.length === 1 && missing[0]!.name === SANDBOX_RUNTIME.name;
    steps.push({
      id: "cli",
      status: missing.length ? "warning" : "done",
      title: options.inPlace ? IN_PLACE_TITLE : TITLES.cli,
      detail:
        `offrun ${copied.version} is in ${copied.dir}.` +
        missing.map((p) => ` ${p.name} was not found beside it, so ${p.neededFor} will not work.`).join("") +
        (onlySandbox
          ? " To run agents sandboxed, install it beside the copy with Copy Install Command (npm, about 20 MB), which also restarts the companion; Set Up Offrun keeps it from then on."
          : ""),
      ...(missing.length ? { fix: onlySandbox ? sandboxInstallCommand(env) : CLI_INSTALL_COMMAND } : {}),
    });
  } catch (error) {
    const title = options.inPlace ? IN_PLACE_TITLE : TITLES.cli;
    steps.push({ id: "cli", status: "failed", title, detail: describeError(error) });
    return finish();
  }

  await writeLauncher(packageDir, env, options.nodePlaces ?? NODE_PLACES);
  steps.push({
    id: "launcher",
    status: "done",
    title: TITLES.launcher,
    detail: `${launcher} finds Node each time it runs.`,
  });

  const node = await nodeStep(launcher, env);
  steps.push(node);
  if (node.status === "failed") return finish();

  steps.push(await linkStep(launcher, options.linkFolders ?? linkFolders(env)));
  steps.push(await serviceStep(launcher, cliVersion, env, options.platform ?? process.platform));
  return finish();
}

const IN_PLACE_TITLE = "Use the Installed CLI";

/**
 * What a user of the Raycast extension, whose CLI comes without the sandbox runtime, runs to get
 * `--sandbox`: the runtime the CLI is built for, installed into ~/.offrun/lib/node_modules (where
 * Node finds it from ~/.offrun/lib/offrun, and which a later Set Up Offrun leaves in place), then
 * the login service installed again, which restarts the companion so that it loads the runtime.
 */
export function sandboxInstallCommand(env: NodeJS.ProcessEnv): string {
  const { launcher, lib } = launcherPaths(env);
  return (
    shellLine(["npm", "install", "--prefix", path.dirname(lib), `${SANDBOX_RUNTIME.name}@${SANDBOX_RUNTIME.version}`]) +
    " && " +
    shellLine([launcher, "companion", "install"])
  );
}

/**
 * The steps' titles are Set Up Offrun's rows beside its detail pane: 24 characters at most, what
 * Raycast shows there (test/helpers/row-width.ts); what a step did goes in its detail.
 */
const TITLES: Record<SetupStepId, string> = {
  cli: "Copy the Offrun CLI",
  launcher: "Write the Launcher",
  node: "Find Node.js",
  link: "Put Offrun on PATH",
  service: "Start Companion at Login",
};

async function nodeStep(launcher: string, env: NodeJS.ProcessEnv): Promise<SetupStep> {
  const base = { id: "node", title: TITLES.node } as const;
  const run = await runCommand({ file: launcher, args: ["--version"], env }, { timeoutMs: RUN_TIMEOUT_MS }).catch(
    (error: unknown) => ({
      exitCode: undefined,
      stdout: "",
      stderr: describeError(error),
      timedOut: false,
      failed: true,
    }),
  );
  if (run.exitCode === 0) {
    return {
      ...base,
      status: "done",
      detail: `The launcher found a supported Node and runs offrun ${run.stdout.trim()}.`,
    };
  }
  if (run.exitCode === NO_NODE_EXIT) {
    return {
      ...base,
      status: "failed",
      detail: `${firstLine(run.stderr) || `No Node.js ${MIN_NODE.major}.${MIN_NODE.minor} or newer was found.`} Install it (\`${NODE_INSTALL_COMMAND}\`, or the installer from ${NODE_DOWNLOAD_URL}), then set up again.`,
      fix: NODE_INSTALL_COMMAND,
    };
  }
  const why = run.timedOut ? `timed out after ${RUN_TIMEOUT_MS / 1000}s` : lastLines(run.stderr || run.stdout);
  return { ...base, status: "failed", detail: `offrun --version failed (${why}).` };
}

/** Links `offrun` to the launcher in the first folder that exists, can be written and has no other offrun. */
async function linkStep(launcher: string, folders: string[]): Promise<SetupStep> {
  const base = { id: "link", title: TITLES.link } as const;
  const others: string[] = [];
  for (const folder of folders) {
    const link = path.join(folder, "offrun");
    const target = await fs.readlink(link).catch(() => undefined);
    if (target !== undefined && path.resolve(folder, target) === launcher) {
      return { ...base, status: "done", detail: `${link} runs the launcher.` };
    }
    if (await exists(link)) {
      others.push(link);
      continue;
    }
    if (!(await isWritableFolder(folder))) continue;
    try {
      await fs.symlink(launcher, link);
      return { ...base, status: "done", detail: `${link} runs the launcher.` };
    } catch {
      continue;
    }
  }
  const pathLine = `export PATH="${path.dirname(launcher)}:$PATH"`;
  return {
    ...base,
    status: "warning",
    detail:
      (others.length ? `Left the other offrun in place (${others.join(", ")}). ` : "") +
      `To type \`offrun\` in a terminal, add its folder to PATH in your shell's profile: ${pathLine}`,
    fix: pathLine,
  };
}

/** The login service's companion, when one answers on this OFFRUN_HOME's socket. */
async function serviceCompanion(env: NodeJS.ProcessEnv): Promise<PingResult | undefined> {
  const client = await CompanionClient.connect(userPaths(offrunHome(env)).socket).catch(() => undefined);
  if (!client) return undefined;
  try {
    const info = await client.ping();
    return info.service ? info : undefined;
  } catch {
    return undefined;
  } finally {
    client.close();
  }
}

async function serviceStep(
  launcher: string,
  version: string,
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform,
): Promise<SetupStep> {
  const base = { id: "service", title: TITLES.service } as const;
  if (env.OFFRUN_NO_LOGIN_SERVICE) {
    return {
      ...base,
      status: "warning",
      detail:
        "OFFRUN_NO_LOGIN_SERVICE is set, so no login service: `offrun companion start` starts the companion when it is needed.",
    };
  }
  if (platform !== "darwin" && platform !== "linux") {
    return { ...base, status: "warning", detail: `No login service on ${platform}: run \`offrun companion start\`.` };
  }
  // Installing again restarts the service's companion, and with it the turns it runs: not when it
  // already runs this version through this launcher.
  const running = await serviceCompanion(env);
  const file = serviceFilePath(platform, env);
  const written = await fs.readFile(file, "utf8").catch(() => "");
  if (running && written.includes(launcher)) {
    if (running.version === version) {
      return { ...base, status: "done", detail: `${file} is installed, and its companion runs offrun ${version}.` };
    }
    if (running.running > 0) {
      return {
        ...base,
        status: "warning",
        detail: `The companion runs offrun ${running.version} with ${running.running} turn(s) going: run Set Up again once they end, to restart it on ${version}.`,
      };
    }
  }
  // `companion install` of the launcher's CLI: the service it writes runs the launcher.
  const run = await runCommand(
    { file: launcher, args: ["companion", "install", "--json"], env },
    { timeoutMs: RUN_TIMEOUT_MS },
  );
  const result = parseInstall(run.stdout);
  if (run.exitCode !== 0 || !result) {
    return {
      ...base,
      status: "failed",
      detail: `offrun companion install failed (${lastLines(run.stderr || run.stdout)}).`,
    };
  }
  if (result.manual?.length) {
    return {
      ...base,
      status: "warning",
      detail: `Wrote ${result.file}, but the service manager did not load it. Run: ${result.manual.join("; ")}`,
      fix: result.manual.join(" && "),
    };
  }
  return {
    ...base,
    status: "done",
    detail: `Wrote and loaded ${result.file}: the companion runs now and at every login.`,
  };
}

/** What `offrun companion install --json` prints (src/cli/service-actions.ts), the fields read here. */
const installSchema = z.object({ file: z.string(), manual: z.array(z.string()).optional() });

function parseInstall(text: string): z.infer<typeof installSchema> | undefined {
  try {
    const parsed = installSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

export async function exists(file: string): Promise<boolean> {
  return fs.lstat(file).then(
    () => true,
    () => false,
  );
}

export async function isWritableFolder(folder: string): Promise<boolean> {
  try {
    if (!(await fs.stat(folder)).isDirectory()) return false;
    await fs.access(folder, fs.constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

function firstLine(text: string): string {
  return text.trim().split("\n")[0] ?? "";
}

function lastLines(text: string): string {
  return text.trim().split("\n").slice(-3).join(" ") || "no output";
}
