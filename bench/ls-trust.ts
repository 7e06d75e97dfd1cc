import fs from "node:fs/promises";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { trackedStateFiles } from "../src/core/git/tracked-state.js";
import { git, makeSandbox, useSandboxInProcess, type Sandbox } from "../test/helpers/offrun.js";
import { fmt, projectWithAgents, stats, timed } from "./agents-fixture.js";

/**
 * What the check of records costs `offrun ls`: every listing first asks which of Offrun's state
 * files git tracks (those came with the repository and are ignored: docs/architecture.md, "Sandbox
 * and trust"), by reading git's index.
 * Baseline, in the same run: `offrun ls` itself, spawn to exit, of 30 agents in the same project.
 * The answer is kept per index; the last column is the check right after git rewrote the index.
 * Three projects: a small one; one of 20,000 committed files (a 2 MB index read at every ls); and
 * one that commits a record, where git itself is asked. Target: in the first two, the check takes
 * under 3% of the ls it is part of.
 */
const AGENTS = 30;
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const CHECKS = 50;
const FILES = Number(process.env.BENCH_FILES ?? 20_000);
const TARGET_SHARE = 0.03;

/**
 * The check alone, in this process, `CHECKS` times: min / median / max of one call. `rewritten`:
 * the index's times change before each call (as after a commit or a refreshing `git status`), so
 * each call reads the index again instead of the answer kept for it.
 */
async function check(root: string, rewritten = false): Promise<ReturnType<typeof stats>> {
  const all: number[] = [];
  const index = path.join(root, ".git", "index");
  for (let i = 0; i < CHECKS; i++) {
    if (rewritten) await fs.utimes(index, new Date(), new Date(Date.now() + i * 1000));
    const start = performance.now();
    await trackedStateFiles(root);
    all.push(performance.now() - start);
  }
  return stats(all);
}

async function main(): Promise<void> {
  const boxes: Sandbox[] = [];
  const project = async (name: string, files?: Record<string, string>) => {
    const box = await makeSandbox(`offrun-bench-trust-${name}-`);
    boxes.push(box);
    return { box, root: await projectWithAgents(box, AGENTS, files) };
  };
  try {
    const many: Record<string, string> = {};
    for (let i = 0; i < FILES; i++) many[`src/m${i % 100}/file-${i}.ts`] = `export const n = ${i};\n`;
    const projects = [
      { label: "small project", ...(await project("small")) },
      { label: `${FILES.toLocaleString("en-US")} committed files`, ...(await project("big", many)) },
      { label: "a record committed (git asked)", ...(await project("committed")) },
    ];
    const committed = projects[2]!;
    await git(committed.root, committed.box.env, ["add", "-f", ".offrun/agents/agent-0.json"]);
    await git(committed.root, committed.box.env, ["commit", "-q", "-m", "a record someone committed"]);

    const ls = projects.map(() => [] as number[]);
    for (let run = 0; run < RUNS; run++) {
      for (const [i, p] of projects.entries()) ls[i]!.push(await timed(["ls"], p.box.env, p.root));
    }
    console.log(`offrun ls of ${AGENTS} agents, and the check of git-tracked records inside it`);
    console.log(
      `${"".padEnd(36)} ${"ls, spawn to exit".padStart(22)} ${"the check alone".padStart(22)} ${"share".padStart(7)}`,
    );
    let failed = false;
    for (const [i, p] of projects.entries()) {
      useSandboxInProcess(p.box);
      const whole = stats(ls[i]!);
      const part = await check(p.root);
      const cold = await check(p.root, true);
      const share = part.median / whole.median;
      const gated = i < 2;
      if (gated && share >= TARGET_SHARE) failed = true;
      const shown = `${(share * 100).toFixed(1)}%${gated ? "" : "*"}`;
      console.log(
        `${p.label.padEnd(36)} ${fmt(whole).padStart(22)} ${fmt(part).padStart(22)} ${shown.padStart(7)} ${fmt(cold).padStart(22)}`,
      );
    }
    console.log(`* not held to the target: a repository that commits Offrun's records runs git at each ls`);
    console.log(`target: the check under ${TARGET_SHARE * 100}% of ls (median) ${failed ? "FAIL" : "PASS"}`);
    if (failed) process.exitCode = 1;
  } finally {
    for (const box of boxes) await box.cleanup();
  }
}

await main();
