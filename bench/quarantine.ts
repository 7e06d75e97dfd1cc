/**
 * `npm run bench`: what the git object quarantine (src/core/git/quarantine.ts) adds to the end of a
 * sandboxed turn, on a generated repository of 20,000 files. Each run, the agent's worktree gets a
 * turn's work (10 files changed, one added), committed through the quarantine as a sandboxed
 * turn's git does; the admission that moves it into the store is timed, and beside it the `git
 * commit` that wrote it (the baseline, measured in the same run), the admission of a turn that
 * wrote no object (every sandboxed turn pays it), and of one that staged without committing (the
 * index is read). Target: a committed turn's admission adds at most 50 ms.
 */
import fsSync from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { execa } from "execa";
import { admitQuarantine, quarantineEnv, quarantineOf } from "../src/core/git/quarantine.js";
import { generateRepo, median, stats } from "./big-repo.js";

const FILES = Number(process.env.BENCH_FILES ?? 20_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const TARGET_MS = 50;

async function main() {
  // On a RAM disk when there is one: this VM's block device varies by seconds between runs.
  const parent = process.env.BENCH_DIR ?? (fsSync.existsSync("/dev/shm") ? "/dev/shm" : os.tmpdir());
  const dir = await fs.mkdtemp(path.join(parent, "offrun-bench-quarantine-"));
  process.once("exit", () => fsSync.rmSync(dir, { recursive: true, force: true }));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: path.join(dir, "home"),
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: path.join(dir, "gitconfig"),
  };
  await fs.mkdir(env.HOME!, { recursive: true });
  await fs.writeFile(env.GIT_CONFIG_GLOBAL!, "[user]\n\tname = Bench\n\temail = bench@offrun.invalid\n");
  // Offrun's own git calls read HOME and the global config from the process (as the companion's do).
  Object.assign(process.env, env);
  const repo = path.join(dir, "repo");
  const git = (cwd: string, args: string[], extra: NodeJS.ProcessEnv = {}) =>
    execa("git", args, { cwd, env: { ...env, ...extra }, extendEnv: false, timeout: 600_000 });

  process.stdout.write(`generating a repository of ${FILES} files ... `);
  await generateRepo(repo, FILES);
  await git(repo, ["init", "-q", "-b", "main"]);
  await git(repo, ["add", "-A"]);
  await git(repo, ["commit", "-q", "-m", "generated"]);
  const worktree = path.join(repo, ".worktrees", "bench");
  await git(repo, ["worktree", "add", "-q", "-b", "offrun/bench", worktree]);
  process.stdout.write("done\n");
  const commonDir = path.join(repo, ".git");
  const gitDir = path.join(commonDir, "worktrees", "bench");
  const inQuarantine = quarantineEnv(commonDir, gitDir);
  const admit = (verified: string) =>
    admitQuarantine({ commonDir, gitDir, worktree, branchRef: "refs/heads/offrun/bench", verified });
  const tip = async () => (await git(repo, ["rev-parse", "offrun/bench"])).stdout.trim();

  const commits: number[] = [];
  const committed: number[] = [];
  const empty: number[] = [];
  const stagedOnly: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    // A turn that commits: its work, written by git into the quarantine.
    await fs.mkdir(quarantineOf(gitDir), { recursive: true });
    await turnWork(worktree, i);
    let verified = await tip();
    await git(worktree, ["add", "-A"], inQuarantine);
    let t0 = performance.now();
    await git(worktree, ["commit", "-q", "-m", `turn ${i}`], inQuarantine);
    commits.push(performance.now() - t0);
    t0 = performance.now();
    const admission = await admit(verified);
    committed.push(performance.now() - t0);
    if (admission.reset || admission.refused.length > 0 || admission.tip === verified) {
      throw new Error(`the honest turn ${i} was not admitted whole: ${JSON.stringify(admission)}`);
    }

    // A turn that wrote no object: what every sandboxed turn's end pays.
    await fs.mkdir(quarantineOf(gitDir), { recursive: true });
    verified = await tip();
    t0 = performance.now();
    await admit(verified);
    empty.push(performance.now() - t0);

    // A turn that staged its work and did not commit: the index is read for the blobs it names.
    await fs.mkdir(quarantineOf(gitDir), { recursive: true });
    await turnWork(worktree, i + RUNS);
    await git(worktree, ["add", "-A"], inQuarantine);
    t0 = performance.now();
    await admit(verified);
    stagedOnly.push(performance.now() - t0);
    await git(worktree, ["commit", "-q", "-m", `staged ${i}`]);
  }
  await git(repo, ["fsck", "--no-dangling", "--no-progress"]);

  console.log(`\n${RUNS} runs, ${FILES} files; ms`);
  console.log(
    `${"measure".padEnd(52)}${"min".padStart(8)}${"median".padStart(8)}${"max".padStart(8)}${"ratio".padStart(8)}`,
  );
  const base = median(commits);
  const rows: [string, number[]][] = [
    ["git commit of the turn's work (baseline)", commits],
    ["admission of that commit (objects moved in)", committed],
    ["admission of a turn that wrote no object", empty],
    ["admission of a turn that only staged (index read)", stagedOnly],
  ];
  for (const [label, times] of rows) {
    console.log(`${label.padEnd(52)}${stats(times)}${(median(times) / base).toFixed(2).padStart(8)}`);
  }
  const added = median(committed);
  console.log(
    `\nThe quarantine adds ${added.toFixed(0)} ms to a committed turn's end (median; min ${Math.min(...committed).toFixed(0)}, max ${Math.max(...committed).toFixed(0)}; target: at most ${TARGET_MS} ms): ${added <= TARGET_MS ? "met" : "NOT met"}`,
  );
  if (added > TARGET_MS) process.exitCode = 1;
}

/** A turn's work: 10 files changed and one added. */
async function turnWork(worktree: string, turn: number): Promise<void> {
  for (let f = 0; f < 10; f++) {
    const file = path.join(worktree, "src", `module-${f}`, `file-${turn % 100}.ts`);
    await fs.appendFile(file, `// turn ${turn}\n`);
  }
  await fs.writeFile(path.join(worktree, `added-${turn}.ts`), `export const turn = ${turn};\n`);
}

await main();
