import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { HarnessSandbox, TurnPlace } from "../types.js";
import { claudeProjectFolder } from "./session-files.js";
import { claudeConfiguration } from "./config-hosts.js";

const defaultHome = (env: NodeJS.ProcessEnv) => env.CLAUDE_CONFIG_DIR || path.join(env.HOME || os.homedir(), ".claude");
const isDefault = (home: string, env: NodeJS.ProcessEnv) => path.resolve(home) === path.resolve(defaultHome(env));

/**
 * Without CLAUDE_CONFIG_DIR (the Default login) Claude Code keeps its state file `~/.claude.json`
 * beside its home rather than in it; with the variable set, the file is inside the folder.
 */
export const claudeStateFile = (home: string, env: NodeJS.ProcessEnv) =>
  isDefault(home, env) && !env.CLAUDE_CONFIG_DIR
    ? path.join(path.dirname(home), ".claude.json")
    : path.join(home, ".claude.json");

/** The login's project folders under `projects/` (one per working directory it ran in). */
function projectFolders(home: string): string[] {
  try {
    return fs
      .readdirSync(path.join(home, "projects"), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
  } catch {
    return []; // no sessions yet
  }
}

/** The project folders a turn in `worktree` writes its session to: of its path, and of its real path. */
function ownProjectFolders(worktree: string): string[] {
  let real = worktree;
  try {
    real = fs.realpathSync(worktree);
  } catch {
    // not made yet: its own path is the one
  }
  return [...new Set([claudeProjectFolder(worktree), claudeProjectFolder(real)])];
}

/**
 * Claude Code's auto memory, `projects/<project>/memory/*.md`: every later session of that project
 * (an agent's worktree counts as its main checkout) reads it into its context as its own notes, so
 * what a sandboxed turn wrote there reached the login's unsandboxed sessions as instructions
 * (test/e2e/sandbox-class.test.ts). Every project's of the login, this turn's made if missing.
 */
function autoMemoryFolders(home: string, turn: TurnPlace | undefined): string[] {
  const own = turn ? [claudeProjectFolder(turn.project), claudeProjectFolder(turn.worktree)] : [];
  return [...new Set([...projectFolders(home), ...own])].map((folder) => path.join(home, "projects", folder, "memory"));
}

/**
 * Every other project folder of the login, whole: the sessions of other worktrees and of the main
 * checkout (the user's own `claude` there), whose transcripts and sub-agent transcripts each
 * session's next turn resumes as what was said. A turn writes only its own worktree's folder.
 */
function otherProjectFolders(home: string, turn: TurnPlace | undefined): string[] {
  if (!turn) return [];
  const own = new Set(ownProjectFolders(turn.worktree));
  return projectFolders(home)
    .filter((folder) => !own.has(folder))
    .map((folder) => path.join(home, "projects", folder));
}

/** Claude Code 2.1.332 in a sandboxed turn (what it writes: docs/sandbox.md). */
export const claudeSandbox: HarnessSandbox = {
  // The API, the OAuth sign-in and its refresh, and the feature flags it fetches.
  hosts: ["api.anthropic.com", "console.anthropic.com", "claude.ai", "statsig.anthropic.com"],
  state: (home, env) => ({ folders: [home], files: [claudeStateFile(home, env)] }),
  // Run by the next plain `claude`, outside any sandbox: settings (hooks, status line, MCP
  // servers, permissions), the folders of commands, agents, skills and output styles, the plugins
  // it installs and the marketplaces they come from (but not `plugins/store` and `plugins/data`,
  // its own state, written in every turn: strace in docs/sandbox.md); the user's own instructions
  // too, which every later session reads as the user's words. And what the binary itself names as
  // state it runs or acts on without asking (its own warnings, in 2.1.332: "the jobs, daemon,
  // shell-snapshots or session-env folder or daemon.json"): `session-env/<session>/*.sh` is sourced
  // ahead of every Bash command of that session, a shell snapshot before each command, and the
  // rules, workflows, routines, scheduled tasks, launch configurations, loop and policy limits
  // steer what later sessions do. The rest were found by the class check's trace of what an
  // unsandboxed turn looks for (test/e2e/sandbox-class.test.ts).
  executable: (home, _env, turn) => ({
    files: [
      "settings.json",
      "settings.local.json",
      "CLAUDE.md",
      "plugins/installed_plugins.json",
      "plugins/installed_plugins_v2.json",
      "plugins/known_marketplaces.json",
      "plugins/known_marketplaces_claudeai.json",
      "plugins/plugin-directory-marketplace.json",
      "plugins/plugin-directory-cache.json",
      "plugins/plugin-directory-cache-v2.json",
      "plugins/flagged-plugins.json",
      // Its global config before `.claude.json` (2.1.332 reads it first when it is there).
      ".config.json",
    ].map((entry) => path.join(home, entry)),
    placeholderFiles: ["daemon.json", "scheduled_tasks.json", "launch.json", "loop.md", "policy-limits.json"].map(
      (entry) => path.join(home, entry),
    ),
    folders: [
      "hooks",
      "commands",
      "agents",
      "skills",
      "output-styles",
      "plugins/marketplaces",
      "plugins/cache",
      "session-env",
      "shell-snapshots",
      "jobs",
      "daemon",
      "rules",
      "workflows",
      "routines",
      // The binary's own list of what a command must not write names the whole `state/` folder
      // (consents, an organization's cached settings, reviewed settings); plugins in a `dev-mods`
      // folder load as the user's own.
      "state",
      "dev-mods",
      "themes",
    ]
      .map((entry) => path.join(home, entry))
      .concat(autoMemoryFolders(home, turn), otherProjectFolders(home, turn)),
  }),
  // `.claude.json` is the CLI's own state (it rewrites it every turn), but its MCP servers and a
  // project's trust and pre-approved tools start processes outside the sandbox later.
  guardedKeys: (home, env) => [
    {
      file: claudeStateFile(home, env),
      keys: [
        ["mcpServers"],
        ["projects", "*", "mcpServers"],
        ["projects", "*", "enabledMcpjsonServers"],
        ["projects", "*", "disabledMcpjsonServers"],
        ["projects", "*", "enableAllProjectMcpServers"],
        ["projects", "*", "allowedTools"],
        ["projects", "*", "hasTrustDialogAccepted"],
      ],
    },
  ],
  configured: (home, _env, worktree) => claudeConfiguration(home, worktree),
  env: [
    "ANTHROPIC_*",
    "CLAUDE_*",
    "CLAUDECODE",
    "DISABLE_*",
    "MAX_THINKING_TOKENS",
    "MCP_TIMEOUT",
    "BASH_*",
    "IS_SANDBOX",
  ],
};
