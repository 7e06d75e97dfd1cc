import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { OffrunError, describeError, isOffrunError } from "../foundation/errors.js";
import { offrunHome } from "../foundation/paths.js";
import { PRIVATE_DIR_MODE } from "../foundation/private-files.js";
import { runCommand } from "../foundation/process.js";
import { shellLine } from "../foundation/shell-quote.js";

/**
 * The companion as a login service: a launchd agent on macOS, a systemd user unit on Linux.
 * The renderers are pure; installService/uninstallService write the file, then load or unload it
 * when the service manager answers, and otherwise say which command the user should run.
 */

export const SERVICE_PLATFORMS = ["darwin", "linux"] as const;
export type ServicePlatform = (typeof SERVICE_PLATFORMS)[number];

export const LAUNCHD_LABEL = "dev.offrun.companion";
export const SYSTEMD_UNIT = "offrun-companion.service";
/** Seconds between restarts after a crash, so a companion that dies at start does not spin. */
export const RESTART_DELAY_SECONDS = 10;
const COMMAND_TIMEOUT_MS = 15_000;

/** What the service runs and with which environment. */
export interface ServiceOptions {
  /**
   * Absolute path of the offrun launcher (src/core/setup/launcher.ts), never a Node binary: the
   * launcher finds Node when it runs, so the service outlives the Node it was installed with.
   */
  program: string;
  /** PATH for the companion: launchd gives none, and the agent CLIs are found through it. */
  pathEnv: string;
  /** Only when OFFRUN_HOME is set in the installing shell. */
  offrunHome?: string;
  /** Where the companion's stdout and stderr go. */
  logPath: string;
}

export function isServicePlatform(value: string): value is ServicePlatform {
  return (SERVICE_PLATFORMS as readonly string[]).includes(value);
}

/**
 * A PATH entry inside Raycast: its Node runtime sits in a folder named by its version
 * (`~/Library/Application Support/com.raycast.macos/NodeJS/runtime/<version>/bin`), gone after
 * the next Raycast update, and a face started from Raycast has it on PATH.
 */
export function isRaycastFolder(entry: string): boolean {
  return /com\.raycast\.macos|\/Raycast\.app\//i.test(entry);
}

/** The options for this shell: its PATH (without Raycast's folders), OFFRUN_HOME when set. */
export function serviceOptions(input: { env: NodeJS.ProcessEnv; program: string }): ServiceOptions {
  const entries = (input.env.PATH ?? "").split(path.delimiter);
  // Relative entries would resolve against the service's cwd, not the shell's: drop them.
  const pathEnv = [...new Set(entries.filter((entry) => path.isAbsolute(entry) && !isRaycastFolder(entry)))].join(
    path.delimiter,
  );
  const override = input.env.OFFRUN_HOME?.trim() ? offrunHome(input.env) : undefined;
  return {
    program: path.resolve(input.program),
    pathEnv,
    offrunHome: override,
    logPath: path.join(offrunHome(input.env), "companion-service.log"),
  };
}

/** Where the service file lives for this user. */
export function serviceFilePath(platform: ServicePlatform, env: NodeJS.ProcessEnv): string {
  const home = env.HOME || os.homedir();
  if (platform === "darwin") return path.join(home, "Library", "LaunchAgents", `${LAUNCHD_LABEL}.plist`);
  const xdg = env.XDG_CONFIG_HOME;
  const config = xdg && path.isAbsolute(xdg) ? xdg : path.join(home, ".config");
  return path.join(config, "systemd", "user", SYSTEMD_UNIT);
}

function programArguments(options: ServiceOptions): string[] {
  return [options.program, "companion", "run"];
}

function environment(options: ServiceOptions): [string, string][] {
  // OFFRUN_COMPANION_SERVICE marks the service's companion: `companion install` asks any other one to hand over to it.
  const home: [string, string][] = options.offrunHome ? [["OFFRUN_HOME", options.offrunHome]] : [];
  return [["PATH", options.pathEnv], ["OFFRUN_COMPANION_SERVICE", "1"], ...home];
}

/** No value may hold a control character: XML 1.0 cannot carry most of them and a unit file is line-based. */
function checkValues(options: ServiceOptions): void {
  // eslint-disable-next-line no-control-regex
  const control = /[\u0000-\u001f\u007f]/;
  for (const value of [...programArguments(options), ...environment(options).flat(), options.logPath]) {
    if (control.test(value)) {
      throw new OffrunError("invalid_input", `A service value holds a control character: ${JSON.stringify(value)}.`);
    }
  }
}

export function xmlEscape(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
}

/** The launchd agent (format: launchd.plist(5)). */
export function launchdPlist(options: ServiceOptions): string {
  checkValues(options);
  const string = (value: string) => `<string>${xmlEscape(value)}</string>`;
  const key = (name: string) => `<key>${xmlEscape(name)}</key>`;
  const lines = [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">`,
    `<!-- Written by offrun companion install; remove with offrun companion uninstall. -->`,
    `<plist version="1.0">`,
    `<dict>`,
    `  ${key("Label")}${string(LAUNCHD_LABEL)}`,
    `  ${key("ProgramArguments")}`,
    `  <array>`,
    ...programArguments(options).map((arg) => `    ${string(arg)}`),
    `  </array>`,
    `  ${key("EnvironmentVariables")}`,
    `  <dict>`,
    ...environment(options).map(([name, value]) => `    ${key(name)}${string(value)}`),
    `  </dict>`,
    `  ${key("RunAtLoad")}<true/>`,
    // Restart after a crash only: `offrun companion stop` exits 0 and must stay stopped.
    `  ${key("KeepAlive")}`,
    `  <dict>`,
    `    ${key("SuccessfulExit")}<false/>`,
    `  </dict>`,
    `  ${key("ThrottleInterval")}<integer>${RESTART_DELAY_SECONDS}</integer>`,
    `  ${key("ProcessType")}${string("Background")}`,
    `  ${key("StandardOutPath")}${string(options.logPath)}`,
    `  ${key("StandardErrorPath")}${string(options.logPath)}`,
    `</dict>`,
    `</plist>`,
  ];
  return lines.join("\n") + "\n";
}

/** `%` starts a specifier everywhere in a unit file (systemd.unit(5)). */
const escapeSpecifiers = (value: string) => value.replace(/%/g, "%%");

/** A double-quoted unit-file word: C-style escapes inside, specifiers doubled (systemd.syntax(7)). */
function quoteWord(value: string): string {
  return `"${escapeSpecifiers(value).replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

/** The systemd user unit (format: systemd.service(5), systemd.exec(5)). */
export function systemdUnit(options: ServiceOptions): string {
  checkValues(options);
  // ExecStart also expands $VAR and ${VAR}: a literal $ is written $$.
  const execStart = programArguments(options)
    .map((arg) => quoteWord(arg.replace(/\$/g, "$$$$")))
    .join(" ");
  // append: takes the rest of the line as the path, unquoted.
  const log = escapeSpecifiers(options.logPath);
  return [
    "# Written by `offrun companion install`; remove with `offrun companion uninstall`.",
    "[Unit]",
    "Description=Offrun companion (runs coding agents in the background)",
    "",
    "[Service]",
    "Type=simple",
    `ExecStart=${execStart}`,
    ...environment(options).map(([name, value]) => `Environment=${quoteWord(`${name}=${value}`)}`),
    // on-failure: `offrun companion stop` exits 0 and must stay stopped.
    "Restart=on-failure",
    `RestartSec=${RESTART_DELAY_SECONDS}`,
    `StandardOutput=append:${log}`,
    `StandardError=append:${log}`,
    "",
    "[Install]",
    "WantedBy=default.target",
    "",
  ].join("\n");
}

/** One service-manager command and how it went. */
export interface ServiceStep {
  argv: string[];
  ok: boolean;
  /** Why it failed: not found, timed out, or the end of its stderr. */
  detail?: string;
  /** The service manager is not installed here (a container, a system without systemd). */
  missing?: boolean;
}

export interface ServiceResult {
  platform: ServicePlatform;
  file: string;
  /** Install: the file was written. Uninstall: a file was removed. */
  changed: boolean;
  /** Install: the service manager loaded it. Uninstall: it unloaded it (false when nothing was installed). */
  managed: boolean;
  steps: ServiceStep[];
  /** When the service manager could not be used: the commands for the user to run, one per line. */
  manual?: string[];
}

export interface ServiceRequest {
  platform: ServicePlatform;
  options: ServiceOptions;
  /** The installing shell's environment: HOME, XDG_CONFIG_HOME, and PATH to find launchctl/systemctl. */
  env: NodeJS.ProcessEnv;
  /** For launchd's gui/<uid> domain. */
  uid?: number;
}

interface Planned {
  argv: string[];
  /** A failure is expected and harmless (booting out an agent that is not loaded). */
  mayFail?: boolean;
}

function loadPlan(platform: ServicePlatform, file: string, uid: number): Planned[] {
  if (platform === "darwin") {
    // Boot out first so a reinstall picks up the new file; bootstrap refuses a loaded label.
    return [
      { argv: ["launchctl", "bootout", `gui/${uid}/${LAUNCHD_LABEL}`], mayFail: true },
      { argv: ["launchctl", "bootstrap", `gui/${uid}`, file] },
    ];
  }
  return [
    { argv: ["systemctl", "--user", "daemon-reload"] },
    { argv: ["systemctl", "--user", "enable", "--now", SYSTEMD_UNIT] },
  ];
}

function unloadPlan(platform: ServicePlatform, uid: number): Planned[] {
  if (platform === "darwin") return [{ argv: ["launchctl", "bootout", `gui/${uid}/${LAUNCHD_LABEL}`] }];
  return [{ argv: ["systemctl", "--user", "disable", "--now", SYSTEMD_UNIT] }];
}

async function runStep(argv: string[], env: NodeJS.ProcessEnv): Promise<ServiceStep> {
  const [file, ...args] = argv as [string, ...string[]];
  try {
    const result = await runCommand({ file, args, env }, { timeoutMs: COMMAND_TIMEOUT_MS });
    if (!result.failed) return { argv, ok: true };
    const why = result.timedOut
      ? `timed out after ${COMMAND_TIMEOUT_MS / 1000}s`
      : `exit ${result.exitCode}: ${result.stderr.trim().split("\n").slice(-3).join(" ")}`;
    return { argv, ok: false, detail: why };
  } catch (error) {
    if (isOffrunError(error, "not_installed")) return { argv, ok: false, missing: true, detail: `${file} not found` };
    return { argv, ok: false, detail: describeError(error) };
  }
}

/** Runs the plan until a step that must succeed fails; then the rest becomes the manual commands. */
async function runPlan(plan: Planned[], env: NodeJS.ProcessEnv) {
  const steps: ServiceStep[] = [];
  for (const [index, planned] of plan.entries()) {
    const step = await runStep(planned.argv, env);
    steps.push(step);
    if (!step.ok && (!planned.mayFail || step.missing)) {
      const rest = plan.slice(index).filter((p) => !p.mayFail);
      return { ok: false, steps, manual: [rest.map((p) => shellLine(p.argv)).join(" && ")] };
    }
  }
  return { ok: true, steps, manual: undefined };
}

function uidOf(request: { uid?: number }): number {
  return request.uid ?? process.getuid?.() ?? 0;
}

/** Writes the service file, then loads it when the service manager answers. Never throws for a failed load. */
export async function installService(request: ServiceRequest): Promise<ServiceResult> {
  const { platform, options, env } = request;
  const file = serviceFilePath(platform, env);
  const content = platform === "darwin" ? launchdPlist(options) : systemdUnit(options);
  // launchd and systemd open the log but do not create its folder.
  await fs.mkdir(path.dirname(options.logPath), { recursive: true, mode: PRIVATE_DIR_MODE });
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, content, { mode: 0o644 });
  const run = await runPlan(loadPlan(platform, file, uidOf(request)), env);
  return { platform, file, changed: true, managed: run.ok, steps: run.steps, manual: run.manual };
}

/** Unloads and removes the service; a second call finds nothing and does nothing. */
export async function uninstallService(request: Omit<ServiceRequest, "options">): Promise<ServiceResult> {
  const { platform, env } = request;
  const file = serviceFilePath(platform, env);
  const exists = await fs.stat(file).then(
    () => true,
    () => false,
  );
  if (!exists) return { platform, file, changed: false, managed: false, steps: [] };
  const run = await runPlan(unloadPlan(platform, uidOf(request)), env);
  await fs.rm(file, { force: true });
  if (platform === "darwin")
    return { platform, file, changed: true, managed: run.ok, steps: run.steps, manual: run.manual };
  // What `disable` does on disk, done here too so a failed systemctl leaves no dangling link at login.
  await fs.rm(path.join(path.dirname(file), "default.target.wants", SYSTEMD_UNIT), { force: true });
  const reload = ["systemctl", "--user", "daemon-reload"];
  if (run.ok) run.steps.push(await runStep(reload, env));
  const manual = run.ok
    ? undefined
    : [shellLine(["systemctl", "--user", "stop", SYSTEMD_UNIT]) + " && " + shellLine(reload)];
  return { platform, file, changed: true, managed: run.ok, steps: run.steps, manual };
}
