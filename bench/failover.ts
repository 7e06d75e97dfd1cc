/**
 * `npm run bench`: what a failover costs. With the real Claude Code and Codex, each login behind
 * its own fake model server, it measures (a) the time from the usage-limit response on one login
 * to the next login's first model request, through `offrun start --wait` with the companion
 * running, and (b) in the same run, a plain cold start of the same CLI (spawned directly, same
 * environment) from spawn to its first model request. Offrun's part is (a) − (b); target: at most
 * 300 ms. For scale, (c): the same plain start resuming the agent's session on the login it went to, as
 * the failover's CLI does: what the CLI itself takes to read the conversation back is in (a) too.
 */
import path from "node:path";
import { performance } from "node:perf_hooks";
import fs from "node:fs/promises";
import { execa } from "execa";
import * as z from "zod";
import { anthropicProtocol } from "../test/fake-server/anthropic.js";
import { responsesProtocol } from "../test/fake-server/openai-responses.js";
import { startFakeServer, type FakeServer } from "../test/fake-server/server.js";
import type { QuotaHeaders } from "../test/fake-server/script.js";
import { CLAUDE_BIN, claudeTestEnv } from "../test/helpers/claude-env.js";
import { CODEX_BIN, prepareCodexHome } from "../test/helpers/codex-env.js";
import { makeRepo, makeSandbox, runOffrun, type Sandbox } from "../test/helpers/offrun.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const TARGET_MS = 300;
const HOUR = 3600;

/** One CLI under test: its two logins' servers and how to start it plainly. */
interface Subject {
  harness: "claude" | "codex";
  name: string;
  /** The server of the login that hits its limit. */
  from: FakeServer;
  /**
   * Adds a fresh login on `from` and returns its label. Fresh each run: a login that hit its limit
   * stays limited (its session files say so), and a pinned start refuses it.
   */
  addFrom: (run: number) => Promise<string>;
  /** Every other login of the CLI (the added one and the Default) answers here. */
  to: FakeServer;
  /** argv and env of a plain cold start of the CLI as the `to` login, in `cwd`; or resuming a session on its login. */
  plain: (cwd: string, resume?: Resume) => { file: string; args: string[]; env: NodeJS.ProcessEnv };
}

interface Sample {
  failover: number;
  cold: number;
  /** (c): a plain start resuming the agent's session, for scale. */
  resumed: number;
  /** Where (a) went, from the agent's chat log: see `phases`. */
  phases: Phases;
}

/**
 * (a) cut at the chat log's own stamps: the limit response to Offrun logging the limit (the CLI
 * reads the 429 and reports it), the limit to the end of the CLI's turn (its result line, after
 * which its session is whole), that end to the next turn's start (Offrun's failover: ledger,
 * session copy, records, the next turn's memory and spawn), and that start to the next request
 * (the CLI's own start, its session read back).
 */
interface Phases {
  toLimitEvent: number;
  toTurnEnd: number;
  toNextTurn: number;
  toRequest: number;
}

const chatLineSchema = z.object({ type: z.string(), at: z.string() });
const recordSchema = z.object({ sessionId: z.string(), worktree: z.string(), account: z.string() });
type Resume = z.infer<typeof recordSchema>;

const epochMs = () => performance.timeOrigin + performance.now();
const nowSeconds = () => Math.floor(Date.now() / 1000);
const quota = (fiveHour: number): QuotaHeaders => ({
  fiveHourUsedPercent: fiveHour,
  fiveHourResetsAt: nowSeconds() + 2 * HOUR,
  weeklyUsedPercent: 10,
  weeklyResetsAt: nowSeconds() + 72 * HOUR,
});

async function main(): Promise<void> {
  const box = await makeSandbox("offrun-bench-fo-");
  const servers = await Promise.all(
    Array.from({ length: 4 }, (_, i) => startFakeServer([i < 2 ? anthropicProtocol : responsesProtocol])),
  );
  const [claudeFrom, claudeTo, codexFrom, codexTo] = servers as [FakeServer, FakeServer, FakeServer, FakeServer];
  try {
    const repo = await makeRepo(path.join(box.dir, "repo"), box.env);
    const env = await environment(box, claudeTo, codexTo);
    const offrun = (...args: string[]) => runOffrun(args, { env, cwd: repo, timeoutMs: 180_000 });
    const subjects = await addLogins(box, env, offrun, { claudeFrom, claudeTo, codexFrom, codexTo });
    await must(offrun("companion", "start"), "companion start");

    const samples = new Map<string, Sample[]>(subjects.map((s) => [s.name, []]));
    // Interleaved, so a slow moment of the machine falls on both CLIs and both measures alike.
    for (let run = 0; run < RUNS; run++) {
      for (const subject of subjects) {
        const { failover, phases, session } = await timeFailover(subject, offrun, repo, run);
        const cold = await timeColdStart(subject, repo);
        const resumed = await timeColdStart(subject, session.worktree, session);
        samples.get(subject.name)!.push({ failover, cold, resumed, phases });
        console.log(
          `${subject.name} run ${run + 1}: failover ${failover.toFixed(0)} ms, cold ${cold.toFixed(0)} ms, resuming ${resumed.toFixed(0)} ms`,
        );
      }
    }
    await offrun("companion", "stop");
    report(subjects, samples);
  } finally {
    await Promise.all(servers.map((s) => s.close()));
    await box.cleanup();
  }
}

/** One environment for both CLIs; the Default logins answer on the `to` servers too. */
async function environment(box: Sandbox, claudeTo: FakeServer, codexTo: FakeServer): Promise<NodeJS.ProcessEnv> {
  const claude = claudeTestEnv({
    serverUrl: claudeTo.url,
    home: box.home,
    tmp: box.tmp,
    configDir: "",
    subscriber: true,
  });
  delete claude.CLAUDE_CONFIG_DIR; // the Default login keeps the CLI's own home
  const codexDefault = path.join(box.home, ".codex");
  await prepareCodexHome({ serverUrl: codexTo.url, codexHome: codexDefault });
  return {
    ...claude,
    OFFRUN_HOME: box.offrunHome,
    GIT_CONFIG_GLOBAL: box.env.GIT_CONFIG_GLOBAL,
    GIT_CONFIG_NOSYSTEM: "1",
    OFFRUN_CLAUDE_BIN: CLAUDE_BIN,
    OFFRUN_CODEX_BIN: CODEX_BIN,
    FAKE_API_KEY: "test",
    LANG: "C.UTF-8",
    NO_COLOR: "1",
  };
}

async function addLogins(
  box: Sandbox,
  env: NodeJS.ProcessEnv,
  offrun: (...args: string[]) => ReturnType<typeof runOffrun>,
  s: Record<"claudeFrom" | "claudeTo" | "codexFrom" | "codexTo", FakeServer>,
): Promise<Subject[]> {
  const addClaude = async (label: string, server: FakeServer) => {
    await must(
      offrun("logins", "add", "claude", label, "--no-login", "--env", `ANTHROPIC_BASE_URL=${server.url}`),
      `accounts add claude ${label}`,
    );
    return label;
  };
  const addCodex = async (label: string, server: FakeServer) => {
    const home = path.join(box.dir, `codex-${label}`);
    await prepareCodexHome({ serverUrl: server.url, codexHome: home });
    await must(offrun("logins", "add", "codex", label, "--home", home, "--no-login"), `accounts add codex ${label}`);
    return label;
  };
  s.claudeFrom.setQuota(quota(50));
  s.codexFrom.setQuota(quota(50));
  s.claudeTo.setQuota(quota(10));
  s.codexTo.setQuota(quota(10));
  await addClaude("second", s.claudeTo);
  await addCodex("second", s.codexTo);
  // A login's home as Offrun keeps it; the Default login is the CLI's own.
  const loginHome = (harness: string, label: string) => path.join(box.offrunHome, "accounts", harness, label);
  const claudeEnv = (label: string): NodeJS.ProcessEnv =>
    label === "default"
      ? { ...env, ANTHROPIC_BASE_URL: s.claudeTo.url }
      : { ...env, CLAUDE_CONFIG_DIR: loginHome("claude", label), ANTHROPIC_BASE_URL: s.claudeTo.url };
  return [
    {
      harness: "claude",
      name: "Claude Code",
      from: s.claudeFrom,
      addFrom: (run) => addClaude(`first-${run}`, s.claudeFrom),
      to: s.claudeTo,
      plain: (_cwd, resume) => ({
        file: CLAUDE_BIN,
        args: [
          "-p",
          "--output-format",
          "stream-json",
          "--verbose",
          ...(resume ? ["--resume", resume.sessionId] : []),
          "--",
          "say hi",
        ],
        env: claudeEnv(resume?.account ?? "second"),
      }),
    },
    {
      harness: "codex",
      name: "Codex",
      from: s.codexFrom,
      addFrom: (run) => addCodex(`first-${run}`, s.codexFrom),
      to: s.codexTo,
      plain: (cwd, resume) => ({
        file: CODEX_BIN,
        args: [
          "exec",
          "--json",
          "--skip-git-repo-check",
          "-C",
          cwd,
          ...(resume ? ["resume", resume.sessionId] : []),
          "say hi",
        ],
        env: {
          ...env,
          CODEX_HOME:
            resume?.account === "default"
              ? path.join(box.home, ".codex")
              : path.join(box.dir, `codex-${resume?.account ?? "second"}`),
        },
      }),
    },
  ];
}

/** (a): the limit answered on a fresh login, then the first model request that reaches another login. */
async function timeFailover(
  subject: Subject,
  offrun: (...args: string[]) => ReturnType<typeof runOffrun>,
  repo: string,
  run: number,
): Promise<{ failover: number; phases: Phases; session: Resume }> {
  const first = await subject.addFrom(run);
  const fromBefore = subject.from.requests.length;
  const toBefore = subject.to.requests.length;
  subject.from.script({ kind: "usage_limit", resetsAt: nowSeconds() + 3 * HOUR });
  subject.to.script({ kind: "text", text: "Finished on the second login." });
  const name = `fo-${subject.harness}-${run}`;
  const result = await must(
    offrun("start", "--wait", "--harness", subject.harness, "--login", first, "--name", name, "say hi"),
    `start ${name}`,
  );
  if (!result.stdout.includes("Finished on the second login.")) {
    throw new Error(`${name} did not finish on the other login:\n${result.stdout}\n${result.stderr}`);
  }
  const limit = subject.from.requests.slice(fromBefore).find((r) => r.answeredWith === "usage_limit");
  const next = subject.to.requests.slice(toBefore).find((r) => r.answeredWith !== "auxiliary");
  if (!limit?.finishedAt || !next) throw new Error(`${name}: the limit or the next request was not recorded`);
  // Gone before the next run, so failover there has the same logins to choose from as here.
  await must(offrun("logins", "rm", subject.harness, first), `accounts rm ${subject.harness} ${first}`);
  const chat = (await fs.readFile(path.join(repo, ".offrun", "chats", `${name}.jsonl`), "utf8"))
    .split("\n")
    .filter(Boolean)
    .map((line) => chatLineSchema.parse(JSON.parse(line)));
  const limitEvent = chat.find((e) => e.type === "limit_hit");
  const turnEnd = chat.find((e) => e.type === "turn_end");
  const nextTurn = chat.filter((e) => e.type === "turn_start").at(1);
  if (!limitEvent || !turnEnd || !nextTurn) throw new Error(`${name}: no limit_hit, turn_end or second turn_start`);
  const phases = {
    toLimitEvent: Date.parse(limitEvent.at) - limit.finishedAt,
    toTurnEnd: Date.parse(turnEnd.at) - Date.parse(limitEvent.at),
    toNextTurn: Date.parse(nextTurn.at) - Date.parse(turnEnd.at),
    toRequest: next.receivedAt - Date.parse(nextTurn.at),
  };
  const record = recordSchema.parse(
    JSON.parse(await fs.readFile(path.join(repo, ".offrun", "agents", `${name}.json`), "utf8")),
  );
  return { failover: next.receivedAt - limit.finishedAt, phases, session: record };
}

/** (b): spawn the CLI directly as the second login and wait for its first model request; (c) resuming a session on its login. */
async function timeColdStart(subject: Subject, cwd: string, resume?: Resume): Promise<number> {
  const before = subject.to.requests.length;
  const { file, args, env } = subject.plain(cwd, resume);
  const t0 = epochMs();
  await execa(file, args, { cwd, env, extendEnv: false, stdin: "ignore", timeout: 120_000 });
  const first = subject.to.requests.slice(before).find((r) => r.answeredWith !== "auxiliary");
  if (!first) throw new Error(`${subject.name}: the plain start made no model request`);
  return first.receivedAt - t0;
}

async function must<T extends { exitCode: number | undefined; stdout: string; stderr: string }>(
  pending: Promise<T>,
  what: string,
): Promise<T> {
  const result = await pending;
  if (result.exitCode !== 0)
    throw new Error(`${what} failed (${result.exitCode}):\n${result.stdout}\n${result.stderr}`);
  return result;
}

function report(subjects: Subject[], samples: Map<string, Sample[]>): void {
  const stats = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    const mid = Math.floor(sorted.length / 2);
    const median = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
    return { min: sorted[0]!, median, max: sorted.at(-1)! };
  };
  const cell = (value: number, digits = 0) => value.toFixed(digits).padStart(9);
  console.log(`\nfailover cost, ${RUNS} interleaved runs per CLI (ms; ratio = a / b)`);
  console.log(
    `${"CLI".padEnd(13)}${"measure".padEnd(36)}${"min".padStart(9)}${"median".padStart(9)}${"max".padStart(9)}`,
  );
  let met = true;
  for (const subject of subjects) {
    const runs = samples.get(subject.name)!;
    const rows: [string, number[], number][] = [
      ["(a) limit -> next login's request", runs.map((r) => r.failover), 0],
      ["(b) plain cold start -> request", runs.map((r) => r.cold), 0],
      ["(c) plain start, resuming -> request", runs.map((r) => r.resumed), 0],
      ["Offrun's part (a - b)", runs.map((r) => r.failover - r.cold), 0],
      ["ratio a / b", runs.map((r) => r.failover / r.cold), 2],
    ];
    for (const [label, values, digits] of rows) {
      const { min, median, max } = stats(values);
      console.log(
        `${subject.name.padEnd(13)}${label.padEnd(36)}${cell(min, digits)}${cell(median, digits)}${cell(max, digits)}`,
      );
    }
    const phases: [string, (p: Phases) => number][] = [
      ["  limit response -> limit logged", (p) => p.toLimitEvent],
      ["  limit logged -> CLI's end of turn", (p) => p.toTurnEnd],
      ["  end of turn -> next turn_start", (p) => p.toNextTurn],
      ["  next turn_start -> its request", (p) => p.toRequest],
    ];
    for (const [label, of] of phases) {
      const { min, median, max } = stats(runs.map((r) => of(r.phases)));
      console.log(`${subject.name.padEnd(13)}${label.padEnd(36)}${cell(min)}${cell(median)}${cell(max)}`);
    }
    const resume = stats(runs.map((r) => r.resumed - r.cold)).median;
    console.log(
      `${subject.name.padEnd(13)}${"  of (a - b): the CLI's resume (c - b)".padEnd(36)}${cell(resume).padStart(18)}`,
    );
    const part = stats(runs.map((r) => r.failover - r.cold)).median;
    console.log(
      `${subject.name}: Offrun's part ${part.toFixed(0)} ms (target: at most ${TARGET_MS} ms): ${part <= TARGET_MS ? "met" : "NOT met"}`,
    );
    met &&= part <= TARGET_MS;
  }
  if (!met) process.exitCode = 1;
}

await main();
