import fs from "node:fs/promises";
import path from "node:path";
import type { AgentRecord } from "../src/core/foundation/model.js";
import { performance } from "node:perf_hooks";
import { makeRepo, runOffrun, type Sandbox } from "../test/helpers/offrun.js";
import { agentRecord } from "../test/helpers/records.js";

/** The benches' agents: a third of them working, each with two turns and a one-line chat log. */
function record(root: string, name: string, i: number): AgentRecord {
  const at = new Date(Date.now() - i * 60_000).toISOString();
  return agentRecord(root, name, {
    task: `task ${i}: make the upload test stable`,
    port: 41000 + i,
    status: i % 3 === 0 ? "working" : "idle",
    turns: 2,
    createdAt: at,
    updatedAt: at,
  });
}

/**
 * A project whose OFFRUN_HOME knows it, with `count` agents and a short chat log each; `files` are
 * committed in it first (a bigger index for the checks that read it).
 */
export async function projectWithAgents(box: Sandbox, count: number, files?: Record<string, string>): Promise<string> {
  const root = await makeRepo(path.join(box.dir, "app"), box.env, files);
  const agents = path.join(root, ".offrun", "agents");
  const chats = path.join(root, ".offrun", "chats");
  await fs.mkdir(agents, { recursive: true });
  await fs.mkdir(chats, { recursive: true });
  for (let i = 0; i < count; i++) {
    const name = `agent-${i}`;
    await fs.writeFile(path.join(agents, `${name}.json`), JSON.stringify(record(root, name, i), null, 2));
    const line = { type: "user_message", at: new Date().toISOString(), turn: 1, text: "make it stable" };
    await fs.writeFile(path.join(chats, `${name}.jsonl`), `${JSON.stringify(line)}\n`);
  }
  const projects = { version: 1, projects: [{ root, lastUsedAt: new Date().toISOString() }] };
  await fs.writeFile(path.join(box.offrunHome, "projects.json"), JSON.stringify(projects));
  return root;
}

/** One `offrun` run, spawn to exit, in ms; a failed run fails the bench. */
export async function timed(args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<number> {
  const start = performance.now();
  const result = await runOffrun(args, { env, cwd });
  const ms = performance.now() - start;
  if (result.exitCode !== 0) throw new Error(`offrun ${args.join(" ")} failed: ${result.stderr}`);
  return ms;
}

export const stats = (all: number[]) => {
  const sorted = [...all].sort((a, b) => a - b);
  return { min: sorted[0]!, median: sorted[Math.floor(sorted.length / 2)]!, max: sorted.at(-1)! };
};
export const fmt = (s: { min: number; median: number; max: number }) =>
  `${s.min.toFixed(0)} / ${s.median.toFixed(0)} / ${s.max.toFixed(0)} ms`;
