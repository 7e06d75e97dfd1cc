import os from "node:os";
import path from "node:path";

/** `~/.offrun`, or `OFFRUN_HOME` when set (every test sets it). */
export function offrunHome(env: NodeJS.ProcessEnv = process.env): string {
  const override = env.OFFRUN_HOME;
  if (override && override.trim() !== "") return path.resolve(override);
  return path.join(env.HOME || os.homedir(), ".offrun");
}

export const userPaths = (home = offrunHome()) => ({
  home,
  projects: path.join(home, "projects.json"),
  accounts: path.join(home, "accounts.json"),
  /** The homes of added logins, `accounts/<harness>/<label>/`: each is its CLI's own folder. */
  loginHomes: path.join(home, "accounts"),
  run: path.join(home, "run"),
  socket: path.join(home, "run", "companion.sock"),
  pidFile: path.join(home, "run", "companion.pid"),
  companionLog: path.join(home, "companion.log"),
  cache: path.join(home, "cache"),
  state: path.join(home, "state.json"),
});

/** The per-project layout (docs/how-it-works.md, What is where). */
export const projectPaths = (root: string) => ({
  root,
  offrun: path.join(root, ".offrun"),
  config: path.join(root, ".offrun", "config.json"),
  chats: path.join(root, ".offrun", "chats"),
  agents: path.join(root, ".offrun", "agents"),
  logs: path.join(root, ".offrun", "agents", "logs"),
  memory: path.join(root, ".offrun", "memory"),
  memorySnapshots: path.join(root, ".offrun", "memory-snapshots"),
  worktrees: path.join(root, ".worktrees"),
  chat: (agent: string) => path.join(root, ".offrun", "chats", `${agent}.jsonl`),
  agent: (agent: string) => path.join(root, ".offrun", "agents", `${agent}.json`),
  log: (agent: string) => path.join(root, ".offrun", "agents", "logs", `${agent}.log`),
  worktree: (agent: string) => path.join(root, ".worktrees", agent),
});
export type ProjectPaths = ReturnType<typeof projectPaths>;
