import fs from "node:fs/promises";
import path from "node:path";
import { anthropicProtocol } from "../fake-server/anthropic.js";
import { responsesProtocol } from "../fake-server/openai-responses.js";
import { startFakeServer, type FakeServer } from "../fake-server/server.js";
import { isAlive } from "../../src/core/foundation/pids.js";
import { CLAUDE_BIN, claudeTestEnv } from "./claude-env.js";
import { CODEX_BIN, codexTestEnv, prepareCodexHome } from "./codex-env.js";
import { makeRepo, makeSandbox, runOffrun, type OffrunResult, type Sandbox } from "./offrun.js";

// The crash matrix's world and scenario (test/e2e/crash-matrix.test.ts): the real Claude Code and
// the real Codex, each with two logins (its Default one and `spare`), each login behind its own
// fake model server, so a usage limit scripted on one login's server moves the session to the
// other login mid-turn, as a user's limit would.

export const NAME = "m";
export const TASK = "write a.txt";
const HOUR = 3600;
const writeWith = (file: string) => `node -e "require('fs').writeFileSync('${file}','yes')"`;

export type Login = "claude/default" | "claude/spare" | "codex/default" | "codex/spare";

export interface MatrixWorld {
  box: Sandbox;
  repo: string;
  env: NodeJS.ProcessEnv;
  servers: Record<Login, FakeServer>;
  offrun(args: string[], options?: { env?: NodeJS.ProcessEnv }): Promise<OffrunResult>;
  close(): Promise<void>;
}

export interface AgentRow {
  name: string;
  status: string;
  harness?: string;
  account?: string;
  pid?: number;
}

export async function matrixWorld(id: string): Promise<MatrixWorld> {
  const box = await makeSandbox(`offrun-matrix-${id}-`);
  const repo = await makeRepo(path.join(box.dir, "repo"), box.env, { "README.md": "# demo\n" });
  await fs.mkdir(path.join(repo, ".offrun"), { recursive: true });
  const servers = {} as Record<Login, FakeServer>;
  for (const login of ["claude/default", "claude/spare"] as const)
    servers[login] = await startFakeServer([anthropicProtocol]);
  for (const login of ["codex/default", "codex/spare"] as const)
    servers[login] = await startFakeServer([responsesProtocol]);
  const codexHome = path.join(box.home, ".codex");
  await prepareCodexHome({ serverUrl: servers["codex/default"].url, codexHome });
  const spareCodexHome = path.join(box.dir, "codex-spare");
  await prepareCodexHome({ serverUrl: servers["codex/spare"].url, codexHome: spareCodexHome });
  const env: NodeJS.ProcessEnv = {
    ...codexTestEnv({ home: box.home, tmp: box.tmp, codexHome }),
    // A subscriber sign-in: Claude Code then reports its usage limit as one (see claude-env.ts).
    ...claudeTestEnv({
      serverUrl: servers["claude/default"].url,
      home: box.home,
      tmp: box.tmp,
      configDir: path.join(box.home, ".claude"),
      subscriber: true,
    }),
    OFFRUN_HOME: box.offrunHome,
    GIT_CONFIG_GLOBAL: box.env.GIT_CONFIG_GLOBAL,
    GIT_CONFIG_NOSYSTEM: "1",
    OFFRUN_CLAUDE_BIN: CLAUDE_BIN,
    OFFRUN_CODEX_BIN: CODEX_BIN,
  };
  const offrun = (args: string[], options: { env?: NodeJS.ProcessEnv } = {}) =>
    runOffrun(args, { env: { ...env, ...options.env }, cwd: repo });
  const added = [
    await offrun([
      "logins",
      "add",
      "claude",
      "spare",
      "--no-login",
      "--env",
      `ANTHROPIC_BASE_URL=${servers["claude/spare"].url}`,
    ]),
    await offrun(["logins", "add", "codex", "spare", "--home", spareCodexHome, "--no-login"]),
  ];
  for (const result of added) if (result.exitCode !== 0) throw new Error(`accounts add: ${result.stderr}`);
  // `accounts add` starts a companion: the matrix starts its own, with the fault.
  await offrun(["companion", "stop"]);
  return {
    box,
    repo,
    env,
    servers,
    offrun,
    close: async () => {
      await box.cleanup();
      await Promise.all(Object.values(servers).map((s) => s.close()));
    },
  };
}

export async function listed(world: MatrixWorld): Promise<AgentRow[]> {
  const result = await world.offrun(["ls", "--json"]);
  return result.exitCode === 0 ? (JSON.parse(result.stdout) as { agents: AgentRow[] }).agents : [];
}

export async function agentRow(world: MatrixWorld): Promise<AgentRow | undefined> {
  return (await listed(world)).find((a) => a.name === NAME);
}

/** Polls until the agent has `wanted` status; false when the companion `pid` died first, the turn ended otherwise, or time ran out. */
async function until(world: MatrixWorld, pid: number, wanted: string): Promise<boolean> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return false;
    const agent = await agentRow(world);
    if (agent?.status === wanted) return true;
    if (agent && ["failed", "idle"].includes(agent.status) && wanted === "needs-you") return false;
    if (agent?.status === "failed") return false;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return false;
}

export interface Run {
  /** The steps that got through, in order. */
  done: string[];
  /** What the step that did not get through printed (empty when all did). */
  said: string;
}

/**
 * start (Claude Code, Default login) → needs-you → approve → the next request hits the login's
 * usage limit: failover to Claude's spare login (session copied) → handoff to Codex (Default login),
 * whose turn hits its limit too: failover to Codex's spare login (session copied) → review by
 * Claude Code on its spare login → merge. Stops at the first step that does not get through;
 * `mark` is told each step as it begins (the matrix notes it in the fault trace).
 */
export async function scenario(world: MatrixWorld, pid: number, mark: (step: string) => Promise<void>): Promise<Run> {
  const { servers } = world;
  const done: string[] = [];
  const worktree = path.join(world.repo, ".worktrees", NAME);
  const reset = Math.floor(Date.now() / 1000) + 3 * HOUR;
  const stopped = (result?: OffrunResult): Run => ({
    done,
    said: result ? `${result.stdout.slice(-1500)}\n${result.stderr}` : "",
  });
  await mark("start");
  servers["claude/default"].script(
    { kind: "shell", command: writeWith("a.txt") },
    { kind: "usage_limit", resetsAt: reset },
  );
  servers["claude/spare"].script({ kind: "text", text: "Wrote it on spare." });
  const start = await world.offrun(["start", "--name", NAME, "--login", "default", TASK]);
  if (start.exitCode !== 0) return stopped(start);
  if (!(await until(world, pid, "needs-you"))) return stopped();
  done.push("start");
  await mark("approve");
  const approve = await world.offrun(["approve", NAME]);
  if (approve.exitCode !== 0) return stopped(approve);
  if (!(await until(world, pid, "idle"))) return stopped();
  if ((await agentRow(world))?.account !== "spare") return stopped();
  done.push("approve+failover");
  await mark("handoff");

  servers["codex/default"].script(
    { kind: "write_file", path: path.join(worktree, "b.txt"), content: "codex was here" },
    { kind: "usage_limit", resetsAt: reset },
  );
  servers["codex/spare"].script({ kind: "text", text: "Finished on Codex's spare login." });
  const handoff = await world.offrun([
    "handoff",
    NAME,
    "--harness",
    "codex",
    "--login",
    "default",
    "--wait",
    "write b.txt",
  ]);
  if (handoff.exitCode !== 0 || !isAlive(pid)) return stopped(handoff);
  const row = await agentRow(world);
  if (row?.harness !== "codex" || row.account !== "spare") return stopped(handoff);
  done.push("handoff+failover");
  await mark("review");

  servers["claude/spare"].script({
    kind: "tool",
    name: "StructuredOutput",
    input: { verdict: "approve", summary: "Writes a.txt and b.txt.", findings: [] },
  });
  const review = await world.offrun(["review", NAME, "--harness", "claude", "--login", "spare", "--wait", "--json"]);
  if (review.exitCode !== 0 || !isAlive(pid)) return stopped(review);
  done.push("review");
  await mark("merge");
  const merge = await world.offrun(["merge", NAME]);
  if (merge.exitCode !== 0 || !isAlive(pid)) return stopped(merge);
  done.push("merge");
  return { done, said: "" };
}

/** Every server answers the next message (whichever CLI and login the agent is on after the fault); returns a reader of what they were sent. */
export function scriptNext(world: MatrixWorld, text: string): () => string {
  const before = new Map<FakeServer, number>();
  for (const server of Object.values(world.servers)) {
    server.clearScript();
    server.script({ kind: "text", text });
    before.set(server, server.turnRequests().length);
  }
  return () =>
    Object.values(world.servers)
      .flatMap((server) => server.turnRequests().slice(before.get(server)))
      .map((request) => JSON.stringify(request.body))
      .join("\n");
}

/** The project's agent CLI processes (their working folder inside it), Linux's /proc: pid and command line. */
export async function cliProcessesIn(root: string): Promise<string[]> {
  const pids: string[] = [];
  for (const entry of await fs.readdir("/proc").catch(() => [])) {
    if (!/^\d+$/.test(entry)) continue;
    const cwd = await fs.readlink(`/proc/${entry}/cwd`).catch(() => "");
    const cmd = await fs.readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => "");
    const argv = cmd.split("\0");
    // By the program's name: a path may say "codex" anywhere (a checkout named so).
    const agentCli = argv
      .slice(0, 2)
      .some((arg) => /^(claude|codex)/.test(path.basename(arg)) || /claude-code|@openai\/codex/.test(arg));
    if (cwd.startsWith(root) && agentCli) pids.push(`${entry} (${cmd.replaceAll("\0", " ").slice(0, 200)})`);
  }
  return pids;
}
