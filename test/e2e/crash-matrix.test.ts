import fs from "node:fs/promises";
import path from "node:path";
import { agentEventSchema, type AgentEvent } from "../../src/core/foundation/events.js";
import { FAULT_POINTS } from "../../src/core/foundation/fault-points.js";
import { isAlive } from "../../src/core/foundation/pids.js";
import { readJsonl } from "../../src/core/foundation/store.js";
import {
  cliProcessesIn,
  listed,
  matrixWorld,
  NAME,
  scenario,
  scriptNext,
  TASK,
  type MatrixWorld,
} from "../helpers/crash-matrix.js";
import { eventually, git, startOffrun } from "../helpers/offrun.js";

// The crash matrix of faults: the real Claude Code and the real Codex against the fake server run
// one scenario (test/helpers/crash-matrix.ts: an agent starts on Claude Code, waits for an
// approval, is approved, hits its login's limit mid-turn and fails over to another login, is
// handed off to Codex, whose turn fails over too, is reviewed, is merged) with the companion
// carrying a fault. A dry run first lists every fault point the scenario passes
// (OFFRUN_FAULT_TRACE), and every point must be among them; then, for a fixed set of those hits
// plus a seeded random sample, the companion is killed there (SIGKILL) or the write fails with
// ENOSPC, and after a restart the invariants are checked:
//   - every line of every chat log parses, and nothing is set aside as torn;
//   - every event `offrun watch --json` showed before the fault is still in the log;
//   - no agent is left working with nothing running, and no CLI process of the project
//     outlives its turn unadopted;
//   - no branch, worktree or review scratch without its record;
//   - the conversation goes on with the next message, with what was said before it (or, when the
//     start never kept the agent, the same name starts again).
// An ENOSPC also leaves the companion running, and says the disk is full. The figures go to stdout.

const SEED = Number(process.env.OFFRUN_MATRIX_SEED ?? Date.now() % 100_000);
const SAMPLE = Number(process.env.OFFRUN_MATRIX_SAMPLE ?? 1);
const DISK_FULL = /disk holding .* is full/;

/** One pass of a fault point, and the scenario's step it came in (the test marks each step in the trace). */
type Hit = { point: string; target: string; step: string };
type Case = { point: string; hit: number; code: "KILL" | "ENOSPC"; step: string };

const figures: string[] = [];
afterAll(() => {
  process.stdout.write(`crash matrix (seed ${SEED}):\n${figures.join("\n")}\n`);
});

/** A small seeded generator (mulberry32): the same seed picks the same sample. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function companionPid(world: MatrixWorld): Promise<number | undefined> {
  const text = await fs.readFile(path.join(world.box.offrunHome, "run", "companion.pid"), "utf8").catch(() => "");
  const pid = Number.parseInt(text, 10);
  return Number.isFinite(pid) && isAlive(pid) ? pid : undefined;
}

const STEP = "#step";
/** Notes in the trace that the scenario's next step begins. */
const marker = (trace: string) => (step: string) => fs.appendFile(trace, `${STEP}\t${step}\n`);

async function readTrace(file: string): Promise<Hit[]> {
  const text = await fs.readFile(file, "utf8").catch(() => "");
  const hits: Hit[] = [];
  let step = "companion start";
  for (const line of text.split("\n").filter((l) => l !== "")) {
    const [point, target] = line.split("\t");
    if (point === STEP) step = target!;
    else hits.push({ point: point!, target: target!, step });
  }
  return hits;
}

function countByPoint(hits: Hit[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const { point } of hits) counts.set(point, (counts.get(point) ?? 0) + 1);
  return counts;
}

/** The project's CLI processes still running 10 s after recovery sent them SIGTERM (none, or they are strays). */
async function cliProcessesEnded(root: string): Promise<string[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const left = await cliProcessesIn(root);
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Every hit the companion passes in one clean run of the scenario, in order. */
async function dryRun(): Promise<Hit[]> {
  const world = await matrixWorld("dry");
  try {
    const trace = path.join(world.box.dir, "trace.tsv");
    expect(await world.offrun(["companion", "start"], { env: { OFFRUN_FAULT_TRACE: trace } })).toSucceed();
    const pid = (await companionPid(world))!;
    const run = await scenario(world, pid, marker(trace));
    expect(run).toEqual({ done: ["start", "approve+failover", "handoff+failover", "review", "merge"], said: "" });
    return await readTrace(trace);
  } finally {
    await world.offrun(["companion", "stop"]);
    await world.close();
  }
}

/**
 * The fixed set: each point's first hit killed and failed with ENOSPC; each point's first hit in
 * the handoff (the record's switch to Codex, the handoff line, Codex's session copy) killed, as
 * that is where a kill can leave a record and its session apart; plus a seeded sample of kills.
 */
function pickCases(hits: Hit[]): Case[] {
  const counts = countByPoint(hits);
  const cases: Case[] = [];
  const add = (c: Omit<Case, "step">) => {
    const step = hits.filter((h) => h.point === c.point)[c.hit - 1]?.step ?? "?";
    if (!cases.some((o) => o.point === c.point && o.hit === c.hit && o.code === c.code)) cases.push({ ...c, step });
  };
  for (const point of counts.keys()) {
    add({ point, hit: 1, code: "KILL" });
    add({ point, hit: 1, code: "ENOSPC" });
  }
  const seen = new Map<string, number>();
  const inHandoff = new Set<string>();
  for (const { point, step } of hits) {
    const hit = (seen.get(point) ?? 0) + 1;
    seen.set(point, hit);
    if (step !== "handoff" || inHandoff.has(point)) continue;
    inHandoff.add(point);
    add({ point, hit, code: "KILL" });
  }
  const next = random(SEED);
  for (let i = 0; i < SAMPLE; i++) {
    const { point } = hits[Math.floor(next() * hits.length)]!;
    add({ point, hit: 1 + Math.floor(next() * counts.get(point)!), code: "KILL" });
  }
  return cases;
}

async function chatOf(world: MatrixWorld): Promise<{ entries: AgentEvent[]; corrupt: unknown[] }> {
  return readJsonl(path.join(world.repo, ".offrun", "chats", `${NAME}.jsonl`), agentEventSchema);
}

async function logs(world: MatrixWorld): Promise<string> {
  const files = [
    path.join(world.box.offrunHome, "companion.log"),
    path.join(world.repo, ".offrun", "agents", "logs", `${NAME}.log`),
  ];
  const texts = await Promise.all(
    files.map((file) =>
      fs.readFile(file, "utf8").then(
        (text) => `--- ${file}:\n${text.slice(-2500)}`,
        () => "",
      ),
    ),
  );
  return texts.join("\n");
}

let hits: Hit[] = [];
beforeAll(async () => {
  hits = await dryRun();
  figures.push(
    `  dry run: ${[...countByPoint(hits)].map(([point, n]) => `${point} ${n}`).join(", ")} (${hits.length} hits)`,
  );
  // OFFRUN_MATRIX_ONLY=trace: the dry run's hits one by one, to pick a case by what it hits.
  if (process.env.OFFRUN_MATRIX_ONLY === "trace") figures.push(...hits.map((h) => `    ${h.point} ${h.target}`));
}, 300_000);

test("the dry run passes every fault point, and the session copy of both CLIs", () => {
  // A point the scenario stops reaching is a point the matrix stops covering: it fails here.
  const counts = countByPoint(hits);
  expect(FAULT_POINTS.filter((point) => !counts.has(point))).toEqual([]);
  expect(counts.get("session-copy")).toBe(2);
});

const JOBS = Number(process.env.OFFRUN_MATRIX_JOBS ?? 3);

/** What one case counted, kept even when it fails. */
interface Outcome {
  fired: boolean;
  lost: number;
  torn: number;
  stranded: number;
  recovery?: number;
  figure: string;
}

/** One case: a fresh world, the scenario with the fault, a restart, the invariants. Throws at the first one broken. */
async function runCase(c: Case, outcome: Outcome): Promise<void> {
  const id = `${c.point}-${c.hit}-${c.code}`;
  const began = Date.now();
  const world = await matrixWorld(id);
  const watch = startOffrun(["watch", "--json", "--project", world.repo], { env: world.env, cwd: world.repo });
  try {
    const trace = path.join(world.box.dir, "trace.tsv");
    const fault = `${c.point}:${c.code}@${c.hit}`;
    // A kill at the companion's own first writes ends `companion start` too.
    await world.offrun(["companion", "start"], { env: { OFFRUN_FAULT: fault, OFFRUN_FAULT_TRACE: trace } });
    const pid = await companionPid(world);
    const run = pid === undefined ? { done: [], said: "" } : await scenario(world, pid, marker(trace));
    // A fault of the companion's own timers (state.json, the quota cache) can fire just after the last step.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const killed = pid === undefined || !isAlive(pid);
    const fired = (countByPoint(await readTrace(trace)).get(c.point) ?? 0) >= c.hit;
    outcome.fired = fired;
    outcome.figure = `  ${id.padEnd(22)} ${c.step.padEnd(8)} ${fired ? "fired" : "not reached"}; steps done: ${run.done.join(",") || "-"}; companion ${killed ? "killed" : "kept running"}`;
    if (c.code === "ENOSPC") {
      expect({ id, alive: !killed }).toEqual({ id, alive: true });
      // Where the full disk stopped the scenario, the user was told so: by the command, or by the turn's end.
      const ends = (await chatOf(world)).entries.filter((e) => e.type === "turn_end");
      const last = ends.at(-1);
      const lastFailed = last?.type === "turn_end" && last.outcome === "failed" ? (last.reason ?? "") : undefined;
      if (lastFailed !== undefined)
        expect({ id, reason: lastFailed }).toEqual({ id, reason: expect.stringMatching(DISK_FULL) });
      if (run.done.length < 5) {
        const told = DISK_FULL.test(run.said) || lastFailed !== undefined;
        expect({ id, done: run.done, told, said: told ? "" : `${run.said}\n${await logs(world)}` }).toEqual({
          id,
          done: run.done,
          told: true,
          said: "",
        });
      }
    }
    // What watch had shown by the fault (it reads the logs, not the companion).
    const shown = watch.output.stdout
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line) as { agent: string; event: { type: string; at: string } });

    // Whatever the fault did, what follows runs on a companion without it: one that is still
    // running is stopped first. That is the faulted one (an ENOSPC, or a hit the scenario did not
    // reach), or one the scenario's next command started after the kill (the faces start a
    // companion when none runs): its turns are the restart's to recover, not strays.
    const running = await companionPid(world);
    if (running !== undefined) expect(await world.offrun(["companion", "stop"])).toSucceed();
    if (killed && running !== undefined) outcome.figure += "; a command had started another";
    const restarted = Date.now();
    expect(await world.offrun(["companion", "start"])).toSucceed();
    // Requests wait for the companion's recovery: once it answers, recovery is done.
    expect(await world.offrun(["companion", "status"])).toSucceed();
    await eventually(
      async () => ((await listed(world)).every((a) => a.status !== "working") ? true : undefined),
      60_000,
      `${id}: no agent left working`,
    );
    outcome.recovery = Date.now() - restarted;

    // Every log line parses; nothing was set aside as torn.
    const chats = path.join(world.repo, ".offrun", "chats");
    const files = await fs.readdir(chats).catch(() => [] as string[]);
    outcome.torn = files.filter((f) => f.endsWith(".torn")).length;
    for (const file of files.filter((f) => f.endsWith(".jsonl"))) {
      const read = await readJsonl(path.join(chats, file), agentEventSchema);
      expect({ id, file, corrupt: read.corrupt }).toEqual({ id, file, corrupt: [] });
      const agent = file.slice(0, -".jsonl".length);
      const kept = new Set(read.entries.map((e) => `${e.type}@${e.at}`));
      outcome.lost += shown.filter((s) => s.agent === agent && !kept.has(`${s.event.type}@${s.event.at}`)).length;
    }

    // No branch, worktree or scratch without its record; no CLI of the project left running unadopted.
    const record = path.join(world.repo, ".offrun", "agents", `${NAME}.json`);
    const kept = await fs.access(record).then(
      () => true,
      () => false,
    );
    const branches = (await git(world.repo, world.box.env, ["branch", "--list", "offrun/*"])).trim();
    const folders = await fs.readdir(path.join(world.repo, ".worktrees")).catch(() => [] as string[]);
    const strays = [
      ...(branches !== "" && !kept ? [`branch ${branches}`] : []),
      ...folders.filter((f) => f.startsWith(".review-") || !kept).map((f) => `folder .worktrees/${f}`),
      ...(await cliProcessesEnded(world.repo)).map((p) => `agent CLI process ${p}`),
    ];
    outcome.stranded = strays.length;
    expect({ id, strays }).toEqual({ id, strays: [] });
    expect({ id, lost: outcome.lost, torn: outcome.torn }).toEqual({ id, lost: 0, torn: 0 });

    // The conversation goes on (what the cut scenario had scripted is not its answer), on
    // whichever CLI and login the agent is on now, and with what was said before: once the
    // first turn got to its approval, the task is in the session the next message goes to.
    const sent = scriptNext(world, "Going on.");
    const next = kept
      ? await world.offrun(["send", "--wait", NAME, "after the fault"])
      : await world.offrun(["start", "--wait", "--name", NAME, "after the fault"]);
    const said = next.exitCode === 0 ? "" : `${next.stdout.slice(-1500)}\n${next.stderr}\n${await logs(world)}`;
    expect({ id, exit: next.exitCode, said }).toEqual({ id, exit: 0, said: "" });
    const users = (await chatOf(world)).entries.filter((e) => e.type === "user_message");
    const last = users.at(-1);
    expect({ id, last: last && "text" in last ? last.text : undefined }).toEqual({ id, last: "after the fault" });
    if (kept && run.done.includes("start")) {
      expect({ id, carried: sent().includes(TASK) }).toEqual({ id, carried: true });
    }
    outcome.figure += `; record ${kept ? "kept" : "undone"}; watch lines ${shown.length}; went on; ${Math.round((Date.now() - began) / 1000)} s`;
  } finally {
    await watch.stop();
    await world.offrun(["companion", "stop"]);
    await world.close();
  }
}

test("at each picked fault, nothing is lost, torn or stranded, and the agent goes on", async () => {
  // OFFRUN_MATRIX_ONLY=snapshot-1-KILL runs one case again (its id is in the figures).
  const only = process.env.OFFRUN_MATRIX_ONLY;
  const cases = pickCases(hits).filter((c) => !only || `${c.point}-${c.hit}-${c.code}` === only);
  const outcomes: Outcome[] = [];
  const failures: string[] = [];
  const began = Date.now();
  // A few cases at a time (OFFRUN_MATRIX_JOBS): most of a case is waiting on a CLI or a poll.
  const queue = [...cases];
  const worker = async () => {
    for (let c = queue.shift(); c; c = queue.shift()) {
      const id = `${c.point}-${c.hit}-${c.code}`;
      const outcome: Outcome = { fired: false, lost: 0, torn: 0, stranded: 0, figure: `  ${id.padEnd(22)}` };
      outcomes.push(outcome);
      try {
        await runCase(c, outcome);
      } catch (error) {
        failures.push(`${id}: ${error instanceof Error ? error.message : String(error)}`);
        process.stderr.write(`crash matrix: ${failures.at(-1)}\n`);
        outcome.figure += " FAILED";
      }
      figures.push(outcome.figure);
    }
  };
  await Promise.all(Array.from({ length: JOBS }, worker));
  const sum = (key: "lost" | "torn" | "stranded") => outcomes.reduce((n, o) => n + o[key], 0);
  const sorted = outcomes.flatMap((o) => (o.recovery === undefined ? [] : [o.recovery])).sort((a, b) => a - b);
  const kills = cases.filter((c) => c.code === "KILL").length;
  const byPoint = [...countByPoint(cases.map((c) => ({ point: c.point, target: "", step: c.step })))];
  figures.push(
    "",
    "  | | |",
    "  |---|---|",
    `  | fault points (dry-run hits) | ${[...countByPoint(hits)].map(([point, n]) => `${point} ${n}`).join(", ")} (${hits.length} hits) |`,
    `  | cases | ${cases.length} (${outcomes.filter((o) => o.fired).length} fired, ${failures.length} failed): ${kills} SIGKILL, ${cases.length - kills} ENOSPC; per point ${byPoint.map(([p, n]) => `${p} ${n}`).join(", ")} |`,
    `  | lines lost / torn | ${sum("lost")} / ${sum("torn")} |`,
    `  | agents or folders stranded | ${sum("stranded")} |`,
    `  | recovery after restart | median ${sorted[Math.floor(sorted.length / 2)] ?? "-"} ms, max ${sorted.at(-1) ?? "-"} ms |`,
    `  | cases' time | ${Math.round((Date.now() - began) / 1000)} s, ${JOBS} at a time |`,
  );
  expect(failures).toEqual([]);
}, 1_800_000);
