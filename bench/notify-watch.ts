/**
 * `npm run bench` (notify-watch): a real `offrun companion run` (the built CLI) watching 5,000
 * session files across 10 logins (5 Claude Code, 5 Codex; the Default login of each plus four
 * added in accounts.json), in a temp HOME/OFFRUN_HOME. Measures:
 * - the time from a line appended to a session file to the notification reaching notify-send
 *   (node-notifier runs a recording notify-send first on PATH that writes a timestamp), p50 and
 *   p95 over 200 events, each a turn end of its own session (so no dedupe or rate limit applies);
 * - the companion's CPU over 60 idle seconds (/proc/<pid>/stat) and its RSS (/proc/<pid>/status).
 * Targets: p95 < 250 ms, idle CPU < 0.5% of one core, RSS < 120 MB. Linux only (/proc).
 * The appended line is the final assistant line of a recorded 2.1.332 transcript
 * (test/fixtures/claude/2.1.332/transcripts/turn-end.jsonl) with its session and message ids made
 * unique. BENCH_EVENTS and BENCH_IDLE_SECONDS shorten a quick run; BENCH_NODE_ARGS passes flags to
 * the companion's node (`--cpu-prof --cpu-prof-dir=/tmp/p`, `--heapsnapshot-signal=SIGUSR2`), and
 * BENCH_KEEP=1 keeps the temp folder (its profiles) and prints where it is.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { COMPANION_NODE_FLAGS } from "../src/core/companion/node-flags.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(here, "..", "..");
// bin/offrun.js loads the built CLI (build/src/cli/main.js) and calls its main.
const OFFRUN = path.join(ROOT, "bin", "offrun.js");
const FIXTURE = path.join(ROOT, "test/fixtures/claude/2.1.332/transcripts/turn-end.jsonl");
const FILES = 5000;
const LOGINS = 10;
const EVENTS = Number(process.env.BENCH_EVENTS ?? 200);
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 60);
const CLK_TCK = 100;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const fixture = fs.readFileSync(FIXTURE, "utf8").split("\n").filter(Boolean);
const template = fixture.find((l) => l.includes('"end_turn"')) ?? "";
const templateSession = (JSON.parse(template) as { sessionId: string }).sessionId;
const templateMessage = /"id":"(msg_[^"]+)"/.exec(template)?.[1] ?? "";

function uuid(n: number): string {
  const hex = n.toString(16).padStart(12, "0");
  return `bench000-0000-4000-8000-${hex}`;
}

/** A Claude turn end of session `id` whose last words are `words`. */
function claudeLine(id: string, words: string): string {
  return template
    .split(templateSession)
    .join(id)
    .split(templateMessage)
    .join(`msg_${id.replace(/-/g, "")}`)
    .replace(/"text":"All 12 tests[^"]*"/, JSON.stringify({ text: words }).slice(1, -1));
}

function codexLines(id: string, words: string): string[] {
  const at = new Date().toISOString();
  return [
    JSON.stringify({ timestamp: at, type: "session_meta", payload: { id, cwd: "/work/bench", thread_source: "user" } }),
    JSON.stringify({
      timestamp: at,
      type: "event_msg",
      payload: { type: "task_complete", turn_id: `t-${id}`, last_agent_message: words },
    }),
  ];
}

interface Login {
  harness: "claude" | "codex";
  home: string;
  files: string[];
}

function makeLogins(dir: string, home: string): Login[] {
  const logins: Login[] = [];
  const entries: unknown[] = [];
  for (let i = 0; i < LOGINS; i++) {
    const harness = i % 2 === 0 ? "claude" : "codex";
    const index = Math.floor(i / 2);
    const loginHome =
      index === 0
        ? path.join(home, harness === "claude" ? ".claude" : ".codex")
        : path.join(dir, "logins", `${harness}-${index}`);
    if (index > 0) entries.push({ harness, label: `l${index}`, home: loginHome, createdAt: new Date().toISOString() });
    const files: string[] = [];
    for (let f = 0; f < FILES / LOGINS; f++) {
      const id = uuid(i * 100_000 + f);
      const file =
        harness === "claude"
          ? path.join(loginHome, "projects", `-work-project-${f % 25}`, `${id}.jsonl`)
          : path.join(
              loginHome,
              "sessions",
              "2026",
              "11",
              String(1 + (f % 28)).padStart(2, "0"),
              `rollout-2026-11-30T02-17-32-${id}.jsonl`,
            );
      fs.mkdirSync(path.dirname(file), { recursive: true });
      const body = harness === "claude" ? fixture.join("\n") + "\n" : codexLines(id, "old").join("\n") + "\n";
      fs.writeFileSync(file, body);
      files.push(file);
    }
    logins.push({ harness, home: loginHome, files });
  }
  fs.writeFileSync(path.join(dir, "oh", "accounts.json"), JSON.stringify({ version: 1, accounts: entries }));
  return logins;
}

function cpuTicks(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]); // utime + stime
}

/**
 * Voluntary context switches of all the process's threads (libuv's pool too): how often it went to
 * sleep, so roughly its wake-ups; a count, not a time, so a busy machine does not blur it.
 */
function wakeUps(pid: number): number {
  let total = 0;
  for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
    const status = fs.readFileSync(`/proc/${pid}/task/${task}/status`, "utf8");
    total += Number(/\nvoluntary_ctxt_switches:\s+(\d+)/.exec(status)?.[1] ?? 0);
  }
  return total;
}

function rssMb(pid: number): number {
  const kb = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  return Number(kb) / 1024;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "offrun-bench-notify-"));
  const home = path.join(dir, "home");
  const offrunHome = path.join(dir, "oh");
  const bin = path.join(dir, "bin");
  const calls = path.join(dir, "notify-send.times");
  for (const d of [home, offrunHome, bin, path.join(dir, "tmp")]) fs.mkdirSync(d, { recursive: true });
  // The title and body, then the time notify-send ran (ms).
  fs.writeFileSync(
    path.join(bin, "notify-send"),
    `#!/bin/sh\nprintf '%s\\t%s\\t%s\\n' "$(date +%s%3N)" "$1" "$2" >> '${calls}'\n`,
    { mode: 0o755 },
  );
  fs.writeFileSync(path.join(offrunHome, "config.json"), JSON.stringify({ notifications: { minIntervalSeconds: 0 } }));
  const logins = makeLogins(dir, home);
  const env = {
    PATH: `${bin}:${process.env.PATH ?? ""}`,
    HOME: home,
    OFFRUN_HOME: offrunHome,
    TMPDIR: path.join(dir, "tmp"),
    LANG: "C.UTF-8",
  };

  const started = Date.now();
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean);
  // Started as Offrun starts it (with its Node flags), not as a bare `offrun companion run`.
  const companion = execa(process.execPath, [...COMPANION_NODE_FLAGS, ...nodeArgs, OFFRUN, "companion", "run"], {
    env,
    extendEnv: false,
    stdin: "ignore",
    reject: false,
    // Kept with the temp folder: what flags such as --trace-gc print.
    ...(process.env.BENCH_KEEP === "1"
      ? { stdout: { file: path.join(dir, "companion.out") }, stderr: { file: path.join(dir, "companion.err") } }
      : {}),
  });
  const log = path.join(offrunHome, "companion.log");
  try {
    while (!(fs.existsSync(log) && fs.readFileSync(log, "utf8").includes("transcripts: watching"))) {
      if (Date.now() - started > 120_000)
        throw new Error(`the companion did not start watching: ${fs.readFileSync(log, "utf8")}`);
      await sleep(50);
    }
    const readyMs = Date.now() - started;
    await sleep(5000); // the first quota reading of every login settles

    const latencies: number[] = [];
    let missed = 0;
    for (let n = 0; n < EVENTS; n++) {
      const login = logins[n % LOGINS]!;
      const file = login.files[Math.floor(n / LOGINS)]!;
      const id = login.harness === "claude" ? path.basename(file, ".jsonl") : path.basename(file, ".jsonl").slice(-36);
      const words = `bench event ${n}`;
      const line = login.harness === "claude" ? claudeLine(id, words) : codexLines(id, words)[1]!;
      const at = Date.now();
      fs.appendFileSync(file, line + "\n");
      let seenAt: number | undefined;
      while (seenAt === undefined && Date.now() - at < 3000) {
        await sleep(5);
        const hit = (fs.existsSync(calls) ? fs.readFileSync(calls, "utf8") : "")
          .split("\n")
          .find((l) => l.endsWith(`\t${words}`));
        if (hit) seenAt = Number(hit.split("\t")[0]);
      }
      if (seenAt === undefined) missed++;
      else latencies.push(seenAt - at);
    }

    await sleep(3000);
    const pid = companion.pid ?? 0;
    const before = cpuTicks(pid);
    const wakeUpsBefore = wakeUps(pid);
    const t0 = Date.now();
    await sleep(IDLE_SECONDS * 1000);
    const cpuPercent = ((cpuTicks(pid) - before) / CLK_TCK / ((Date.now() - t0) / 1000)) * 100;
    const wakeUpsPerSecond = (wakeUps(pid) - wakeUpsBefore) / ((Date.now() - t0) / 1000);
    const rss = rssMb(pid);

    const rows: [string, string, string][] = [
      ["session files watched", `${FILES} across ${LOGINS} logins`, ""],
      ["start to watching", `${readyMs} ms`, ""],
      [
        `append -> notify-send p50 (${latencies.length} events, ${missed} missed)`,
        `${percentile(latencies, 50)} ms`,
        "",
      ],
      ["append -> notify-send p95", `${percentile(latencies, 95)} ms`, "< 250 ms"],
      [`idle CPU over ${IDLE_SECONDS} s`, `${cpuPercent.toFixed(3)} % of one core`, "< 0.5 %"],
      ["idle wake-ups (voluntary context switches)", `${wakeUpsPerSecond.toFixed(1)} /s`, ""],
      ["RSS", `${rss.toFixed(1)} MB`, "< 120 MB"],
    ];
    const width = Math.max(...rows.map((r) => r[0].length));
    console.log("\nnotify-watch: external sessions");
    for (const [what, value, target] of rows) console.log(`${what.padEnd(width)}  ${value.padEnd(26)} ${target}`);
    const met = percentile(latencies, 95) < 250 && cpuPercent < 0.5 && rss < 120 && missed === 0;
    console.log(`targets: ${met ? "met" : "NOT met"}`);
    if (!met) process.exitCode = 1;
  } finally {
    companion.kill("SIGTERM");
    await companion;
    if (process.env.BENCH_KEEP === "1") console.log(`kept ${dir}`);
    else fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
