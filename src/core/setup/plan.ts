import fs from "node:fs/promises";
import path from "node:path";
import { serviceFilePath } from "../companion/service.js";
import { offrunHome } from "../foundation/paths.js";
import { bundledCliVersion } from "./bundle.js";
import { launcherPaths, stablePackageDir } from "./launcher.js";
import { exists, isWritableFolder, linkFolders, type SetupOptions, type SetupStepId } from "./set-up.js";

/** `offrun setup --dry-run`: what set-up.ts would write, read from the same places, writing nothing. */

/** One thing set-up would write, for `offrun setup --dry-run`. */
export interface PlannedWrite {
  step: SetupStepId;
  /** "copy", "write", "link" or "none" (nothing to write, and why). */
  action: "copy" | "write" | "link" | "keep" | "none";
  path: string;
  detail: string;
}

/**
 * What `setUpOffrun` would write, and where, without writing anything or starting anything: the
 * same choices it makes (the link folder, the service file) read from the same places.
 */
export async function setupPlan(options: SetupOptions): Promise<PlannedWrite[]> {
  const { env } = options;
  const { launcher, lib } = launcherPaths(env);
  const version = await bundledCliVersion(options.source).catch(() => "(unknown version)");
  const plan: PlannedWrite[] = [];
  if (options.inPlace) {
    const dir = await stablePackageDir(options.source);
    plan.push({
      step: "cli",
      action: "keep",
      path: dir,
      detail: `offrun ${version} runs from here; nothing is copied`,
    });
  } else {
    plan.push({ step: "cli", action: "copy", path: lib, detail: `offrun ${version}, replacing what is there` });
  }
  plan.push({
    step: "launcher",
    action: "write",
    path: launcher,
    detail: "the launcher: finds Node each time it runs",
  });
  plan.push(await plannedLink(launcher, options.linkFolders ?? linkFolders(env)));
  const platform = options.platform ?? process.platform;
  if (env.OFFRUN_NO_LOGIN_SERVICE) {
    plan.push({
      step: "service",
      action: "none",
      path: "",
      detail: "OFFRUN_NO_LOGIN_SERVICE is set: no login service",
    });
  } else if (platform !== "darwin" && platform !== "linux") {
    plan.push({ step: "service", action: "none", path: "", detail: `no login service on ${platform}` });
  } else {
    const file = serviceFilePath(platform, env);
    const manager = platform === "darwin" ? "launchctl" : "systemctl --user";
    plan.push({
      step: "service",
      action: "write",
      path: file,
      detail: `the companion's login service, then loaded with ${manager} (it starts the companion now and at every login)`,
    });
    plan.push({
      step: "service",
      action: "write",
      path: path.join(offrunHome(env), "companion-service.log"),
      detail: "the service's log (by the service manager, once it runs)",
    });
  }
  return plan;
}

/** Where linkStep would link, or why it would not: the same first-usable-folder rule, read only. */
async function plannedLink(launcher: string, folders: string[]): Promise<PlannedWrite> {
  const others: string[] = [];
  for (const folder of folders) {
    const link = path.join(folder, "offrun");
    const target = await fs.readlink(link).catch(() => undefined);
    if (target !== undefined && path.resolve(folder, target) === launcher) {
      return { step: "link", action: "keep", path: link, detail: "already runs the launcher" };
    }
    if (await exists(link)) {
      others.push(link);
      continue;
    }
    if (!(await isWritableFolder(folder))) continue;
    return {
      step: "link",
      action: "link",
      path: link,
      detail: `-> ${launcher} (the first of ${folders.join(", ")} that can take it; OFFRUN_LINK_DIR=<folder> picks another)`,
    };
  }
  return {
    step: "link",
    action: "none",
    path: "",
    detail:
      (others.length ? `another offrun is in the way (${others.join(", ")}), left as it is; ` : "") +
      `no folder on PATH to link into: add export PATH="${path.dirname(launcher)}:$PATH" to your shell's profile`,
  };
}
