import fs from "node:fs/promises";
import path from "node:path";
import { binaryOverrideVariable, installFolders, locateBinary } from "../../core/foundation/binaries.js";
import { OffrunError } from "../../core/foundation/errors.js";
import type { Command } from "../../core/foundation/process.js";
import { launcherPaths } from "../../core/setup/launcher.js";
import { CLI_INSTALL_COMMAND } from "../../core/setup/set-up.js";
import { COMPANION_NODE_FLAGS } from "../../core/companion/node-flags.js";

/**
 * How a face that is not the `offrun` CLI (the Raycast extension) starts the companion. Raycast
 * gives extensions neither the login shell's PATH nor a `node` on it, so `offrun` (a Node
 * script) is found through the setting or the usual install folders and run with the Node that
 * runs the face.
 */

/** `OFFRUN_<HARNESS>_BIN` for each binary path set in the preferences (locateBinary reads these). */
export function binaryOverrides(paths: Record<string, string | undefined>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [harness, file] of Object.entries(paths)) {
    const trimmed = file?.trim();
    if (trimmed) env[binaryOverrideVariable(harness)] = trimmed;
  }
  return env;
}

/** PATH for processes started from a GUI app: the given one, Node's own folder, then the usual install folders. */
export function guiPath(env: NodeJS.ProcessEnv, nodePath: string): string {
  const dirs = [
    ...(env.PATH ?? "").split(path.delimiter),
    path.dirname(nodePath),
    ...installFolders(env),
    "/bin",
    "/usr/sbin",
    "/sbin",
  ].filter(Boolean);
  return [...new Set(dirs)].join(path.delimiter);
}

/** The command that runs `offrun companion run`, detached, from a face. */
export async function companionLaunch(options: {
  /** The `offrun` path from the preferences, if set. */
  offrunPath?: string;
  /** The Node binary running this face (process.execPath). */
  nodePath: string;
  env: NodeJS.ProcessEnv;
}): Promise<Command> {
  const configured = options.offrunPath?.trim();
  // Set Up Offrun's launcher first: it is the one this extension installed.
  const found = configured
    ? await locateBinary("offrun", configured, { ...options.env, PATH: "" }).then(
        (f) => f ?? (path.isAbsolute(configured) ? undefined : configured),
      )
    : await locateBinary("offrun", launcherPaths(options.env).launcher, options.env).then(
        (f) => f ?? locateBinary("offrun", "offrun", options.env),
      );
  if (
    !found ||
    !(await fs.stat(found).then(
      (s) => s.isFile(),
      () => false,
    ))
  ) {
    throw new OffrunError(
      "not_installed",
      configured
        ? `The Offrun CLI set in the preferences (${configured}) is not an executable file. Fix the path in the extension's preferences.`
        : `The offrun CLI was not found. Run Set Up Offrun, or in a terminal \`${CLI_INSTALL_COMMAND}\`, or set its path in the extension's preferences.`,
    );
  }
  const real = await fs.realpath(found);
  const env = { ...options.env, PATH: guiPath(options.env, options.nodePath) };
  // npm links `offrun` to bin/offrun.js: run it with this Node, since `#!/usr/bin/env node` finds none here.
  if (real.endsWith(".js") || real.endsWith(".mjs")) {
    return { file: options.nodePath, args: [...COMPANION_NODE_FLAGS, real, "companion", "run"], env };
  }
  return { file: real, args: ["companion", "run"], env };
}
