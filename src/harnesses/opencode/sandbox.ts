import { createHash } from "node:crypto";
import { readdirSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { PROVIDER_VARIABLES } from "../shared/provider-env.js";
import type { HarnessSandbox } from "../types.js";
import { opencodeConfigFolder, opencodeConfiguration } from "./config-hosts.js";

/** OpenCode 1.18.33 in a sandboxed turn (what it writes: docs/sandbox.md). */
export const opencodeSandbox: HarnessSandbox = {
  // Its model list comes from models.dev; it talks to whichever provider the login's config names.
  // The common ones are listed, a project adds others with sandbox.allowHosts.
  hosts: [
    "models.dev",
    "opencode.ai",
    "api.anthropic.com",
    "api.openai.com",
    "generativelanguage.googleapis.com",
    "openrouter.ai",
  ],
  // A login's home is OpenCode's XDG_DATA_HOME (the Default one is ~/.local/share, shared with
  // every other program): only its own folder there is written, with its folders in the cache and
  // state homes (1.18.33 stops without them). Its config (plugins, agents, commands, MCP servers)
  // lives under XDG_CONFIG_HOME, outside those, so it stays read-only.
  state: (home, env) => {
    const userHome = env.HOME || os.homedir();
    const cache = env.XDG_CACHE_HOME || path.join(userHome, ".cache");
    const state = env.XDG_STATE_HOME || path.join(userHome, ".local", "state");
    return {
      folders: [path.join(home, "opencode"), path.join(cache, "opencode"), path.join(state, "opencode")],
      files: [],
    };
  },
  // In its cache: `bin/`, where it looks for the tools it runs (an `az` there would run at the next
  // start), and `models.json`, whose provider URLs the next turn sends its key to. Its snapshot
  // repositories (`<data>/opencode/snapshot/<project>/<sha1 of the worktree>`, a git folder it runs
  // git on): every other worktree's is read-only (a `core.fsmonitor` in its config would run
  // outside the sandbox, objects written there would come back at a revert). Found by the class
  // check's trace (test/e2e/sandbox-class.test.ts).
  executable: (home, env, turn) => {
    const cache = path.join(env.XDG_CACHE_HOME || path.join(env.HOME || os.homedir(), ".cache"), "opencode");
    return {
      files: [path.join(cache, "models.json")],
      folders: [path.join(cache, "bin"), ...otherSnapshots(path.join(home, "opencode", "snapshot"), turn?.worktree)],
    };
  },
  // A provider's baseURL in the login's config (a gateway, a local model server) is opened too.
  configured: (home, env) => opencodeConfiguration(home, env),
  env: ["OPENCODE_*", ...PROVIDER_VARIABLES],
  unready: async (home, env) => {
    const folder = opencodeConfigFolder(home, env);
    if (await firstRunDone(folder)) return undefined;
    return (
      `OpenCode has not set up its config folder (${folder}) yet: on its first run it installs its plugin ` +
      "package there, which a sandboxed turn may not write (the folder holds what OpenCode runs). Run one " +
      "turn of this login without --sandbox, or `opencode` itself once, then try again."
    );
  },
};

/**
 * Whether OpenCode's first run already set up the config folder. 1.18.33 writes `.gitignore`
 * there first and stops when it cannot ("Unexpected error … FileSystem.writeFile"); the plugin
 * install that follows (package.json, node_modules) runs in the background, and a turn goes on
 * without it. On a later run it writes nothing there (seen with strace and file times).
 */
async function firstRunDone(folder: string): Promise<boolean> {
  return fs.access(path.join(folder, ".gitignore")).then(
    () => true,
    () => false,
  );
}

/** The snapshot repositories of every worktree but `worktree` (1.18.33 names each by the sha1 of its worktree's path). */
function otherSnapshots(root: string, worktree: string | undefined): string[] {
  const own = worktree ? createHash("sha1").update(worktree).digest("hex") : undefined;
  const folders = (dir: string) => {
    try {
      return readdirSync(dir, { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => path.join(dir, entry.name));
    } catch {
      return [];
    }
  };
  return folders(root)
    .flatMap(folders)
    .filter((folder) => path.basename(folder) !== own);
}
