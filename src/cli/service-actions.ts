import {
  installService,
  isServicePlatform,
  launchdPlist,
  serviceFilePath,
  serviceOptions,
  systemdUnit,
  uninstallService,
  type ServicePlatform,
  type ServiceResult,
} from "../core/companion/service.js";
import { CompanionClient } from "../core/protocol/client.js";
import { OffrunError } from "../core/foundation/errors.js";
import { launcherPaths, stablePackageDir, writeLauncher } from "../core/setup/launcher.js";
import { output, packageRoot, type GlobalOptions } from "./output.js";

/** offrun companion install|uninstall: the companion as a launchd agent or systemd user unit. */

function platform(): ServicePlatform {
  if (isServicePlatform(process.platform)) return process.platform;
  throw new OffrunError(
    "invalid_input",
    `Offrun can install the companion as a login service on macOS (launchd) and Linux (systemd), not on ${process.platform}. Run \`offrun companion start\` instead.`,
  );
}

function manager(platform: ServicePlatform): string {
  return platform === "darwin" ? "launchctl" : "systemctl";
}

/** The lines after the first: what the service manager did, or the commands to run by hand. */
function managerText(result: ServiceResult, done: string): string[] {
  if (result.manual === undefined) return [done];
  const failed = result.steps.find((step) => !step.ok);
  const why = failed?.missing ? `${manager(result.platform)} was not found` : `${failed?.argv.join(" ")} failed`;
  return [
    `Could not use ${manager(result.platform)} (${why}${failed?.detail && !failed.missing ? `: ${failed.detail}` : ""}).`,
    "To finish, run:",
    ...result.manual.map((line) => `  ${line}`),
  ];
}

export async function install(options: GlobalOptions & { print?: boolean }): Promise<void> {
  const target = platform();
  // The service runs the launcher, which runs this offrun with whichever supported Node there is
  // when it starts: never process.execPath, which from Raycast is its versioned Node.
  const service = serviceOptions({ env: process.env, program: launcherPaths(process.env).launcher });
  if (options.print) {
    const file = serviceFilePath(target, process.env);
    const content = target === "darwin" ? launchdPlist(service) : systemdUnit(service);
    return output(options, { platform: target, file, content }, () => `# ${file}\n${content.trimEnd()}`);
  }
  await writeLauncher(await stablePackageDir(packageRoot), process.env);
  const result = await installService({ platform: target, options: service, env: process.env });
  // A companion started before the service (by a face or `companion start`) holds the socket: it
  // ends once its running turns have, and the service's companion, waiting for the socket, adopts
  // its agents. Only once the service manager runs the service, or nothing would take over.
  const handover = result.managed ? await handOverToService() : undefined;
  output(options, { ...result, ...(handover ? { handover } : {}) }, () =>
    [
      `Wrote ${result.file}: the companion starts at login and restarts if it crashes.`,
      `  log: ${service.logPath}`,
      ...managerText(result, "Loaded it: the companion runs now."),
      ...(handover
        ? [
            `The companion that was running (pid ${handover.pid}) hands its agents over to the service${handover.running > 0 ? ` once its ${handover.running} running turn(s) end` : ""}.`,
          ]
        : []),
    ].join("\n"),
  );
}

/** Asks a running companion that is not the service's to hand over; undefined when there is none. */
async function handOverToService(): Promise<{ pid: number; running: number } | undefined> {
  const client = await CompanionClient.connect().catch(() => undefined);
  if (!client) return undefined;
  try {
    const info = await client.ping();
    if (info.service) return undefined;
    const { running } = await client.call("companion.handover", {});
    return { pid: info.pid, running };
  } finally {
    client.close();
  }
}

export async function uninstall(options: GlobalOptions): Promise<void> {
  const result = await uninstallService({ platform: platform(), env: process.env });
  output(options, result, () =>
    result.changed
      ? [`Removed ${result.file}.`, ...managerText(result, "Stopped and unloaded the companion service.")].join("\n")
      : `Nothing to remove: ${result.file} does not exist.`,
  );
}
