import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { AGENT_STATUSES } from "../src/core/model.js";
import { readSnapshot, type Snapshot } from "../src/core/snapshot.js";
import { buildMenuBar } from "../src/core/views/menu-bar.js";
import { HARNESSES } from "../src/harnesses/registry.js";

/**
 * The menu bar's work from launch to its items being ready: read ~/.offrun/state.json and build
 * the view model, with 50 agents and 20 logins. Target: under 30 ms (issue 7).
 */
const TARGET_MS = 30;
const RUNS = 50;

const now = Date.now();
const iso = (minutes: number) => new Date(now + minutes * 60_000).toISOString();
const snapshot: Snapshot = {
  version: 1,
  writtenAt: iso(0),
  companion: { pid: process.pid, version: "bench", startedAt: iso(-60) },
  counts: Object.fromEntries(AGENT_STATUSES.map((s) => [s, 0])) as Snapshot["counts"],
  agents: Array.from({ length: 50 }, (_, i) => ({
    project: `/work/project-${i % 5}`,
    name: `agent-${i}`,
    harness: HARNESSES[i % 3]!.id,
    account: `login-${i % 20}`,
    mode: "build" as const,
    status: AGENT_STATUSES[i % AGENT_STATUSES.length]!,
    turns: 3,
    turnStartedAt: iso(-5),
    updatedAt: iso(-1),
    branch: `offrun/agent-${i}`,
    worktree: `/work/project-${i % 5}/.worktrees/agent-${i}`,
    port: 41000 + i,
    lastWords: "Done: the upload test is stable now. ".repeat(4),
    pending: i % 6 === 0 ? [{ kind: "approval" as const, tool: "Bash", text: "npm install" }] : [],
  })),
  quota: Array.from({ length: 20 }, (_, i) => ({
    harness: HARNESSES[i % 3]!.id,
    label: `login-${i}`,
    windows: [
      { kind: "five_hour", usedPercent: (i * 7) % 100, resetsAt: iso(90), source: "stream", observedAt: iso(-i * 3) },
      { kind: "seven_day", usedPercent: (i * 3) % 100, resetsAt: iso(3000), source: "stream", observedAt: iso(-i * 3) },
    ],
    ...(i === 4 ? { limitedUntil: iso(60), limitReason: "usage limit" } : {}),
  })),
  notifications: [],
};

const dir = await fs.mkdtemp(path.join(os.tmpdir(), "offrun-bench-menu-"));
const file = path.join(dir, "state.json");
await fs.writeFile(file, JSON.stringify(snapshot, null, 2));
const names = new Map(HARNESSES.map((h) => [h.id, h.displayName]));
const times: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const start = performance.now();
  const read = await readSnapshot(file);
  const model = buildMenuBar(read, { now: Date.now(), harnessNames: names, companionAlive: true });
  times.push(performance.now() - start);
  if (model.harnesses.length === 0) throw new Error("the snapshot was not read");
}
await fs.rm(dir, { recursive: true, force: true });
times.sort((a, b) => a - b);
const median = times[Math.floor(RUNS / 2)]!;
const first = times.at(-1)!;
console.log(
  `menu bar: snapshot read + view model, 50 agents, 20 logins: median ${median.toFixed(2)} ms, slowest ${first.toFixed(2)} ms (target < ${TARGET_MS} ms)`,
);
if (median >= TARGET_MS) process.exitCode = 1;
