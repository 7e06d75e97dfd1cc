/**
 * `npm run bench` (after start-to-spawn): the quota sources' session scan on a generated history of
 * 1 GB of Claude Code sessions (2,000, some with sub-agents) and 200 MB of Codex rollouts, against
 * `ccusage blocks --json --offline` on the same Claude data in the same run. Targets: a cold scan
 * within 1.5x of ccusage, a refresh after one appended line under 50 ms, peak memory under 200 MB.
 * BENCH_SCALE=0.1 shrinks the history for a quick run; BENCH_DIR picks the folder (default /dev/shm).
 *
 * Our scans run in child processes (`quota-scan.js --child ...`), so their peak RSS is theirs alone.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import * as z from "zod";
import type { Login } from "../src/core/foundation/login-model.js";
import type { QuotaSourceContext } from "../src/core/foundation/quota-types.js";
import { localRunner } from "../src/core/foundation/runner.js";
import {
  claudeLimitScanner,
  claudeUsageScanner,
  currentBlock,
  quotaSources as claudeSources,
} from "../src/harnesses/claude/quota.js";
import { codexRolloutScanner, quotaSources as codexSources } from "../src/harnesses/codex/quota.js";
import { claudeAppendLine, writeClaudeHistory, writeCodexHistory } from "./quota-history.js";

const SCALE = Number(process.env.BENCH_SCALE ?? 1);
const CLAUDE_BYTES = 1e9 * SCALE;
const CLAUDE_SESSIONS = Math.max(20, Math.round(2000 * SCALE));
const CODEX_BYTES = 2e8 * SCALE;
const CODEX_FILES = Math.max(10, Math.round(400 * SCALE));
const RUNS = Number(process.env.BENCH_RUNS ?? 2);
const here = path.dirname(fileURLToPath(import.meta.url));
const packageRoot = path.resolve(here, "..", "..");
const ccusageBin = path.join(packageRoot, ".test-clis", "node_modules", ".bin", "ccusage");

/** What a child prints: its timings (ms) and peak memory (MB). */
const childReportSchema = z.object({
  claudeColdMs: z.number(),
  codexColdMs: z.number(),
  refreshClaudeMs: z.number(),
  refreshCodexMs: z.number(),
  fullRefreshMs: z.number(),
  peakRssMb: z.number(),
  blockTokens: z.number().optional(),
  corrupt: z.number(),
});
type ChildReport = z.infer<typeof childReportSchema>;

function login(harness: string, home: string): Login {
  return { harness, label: "bench", home, isDefault: false, adopted: false, env: {} };
}

/** Runs in a child: cold (or warm, with a cache) scan through the real sources, then one append. */
async function child(claudeHome: string, codexHome: string, cacheDir: string, appendTo: string): Promise<void> {
  const context = (harness: string, home: string, source: string): QuotaSourceContext => ({
    login: login(harness, home),
    env: {},
    runner: localRunner,
    now: new Date(),
    cacheDir: path.join(cacheDir, source),
  });
  const time = async (work: () => Promise<unknown>) => {
    const t0 = performance.now();
    await work();
    return performance.now() - t0;
  };
  const [, limits, usage] = claudeSources;
  const [rollouts] = codexSources;
  const claudeColdMs = await time(async () => {
    await limits!.read(context("claude", claudeHome, limits!.id));
    await usage!.read(context("claude", claudeHome, usage!.id));
  });
  // Before this child appends anything: the ccusage run just before it saw the same files.
  const blockTokens = currentBlock(
    claudeUsageScanner(claudeHome, path.join(cacheDir, usage!.id)).aggregate.hours,
    new Date(),
  )?.tokens;
  const codexColdMs = await time(() => rollouts!.read(context("codex", codexHome, rollouts!.id)));

  fs.appendFileSync(appendTo, claudeAppendLine(Date.now()));
  const usageScanner = claudeUsageScanner(claudeHome, path.join(cacheDir, usage!.id));
  const limitScanner = claudeLimitScanner(claudeHome, path.join(cacheDir, limits!.id));
  const refreshClaudeMs = await time(() =>
    Promise.all([usageScanner.refresh([appendTo]), limitScanner.refresh([appendTo])]),
  );
  const rolloutFile = execFileSync("find", [path.join(codexHome, "sessions"), "-name", "rollout-*"], {
    encoding: "utf8",
  }).split("\n")[0]!;
  fs.appendFileSync(
    rolloutFile,
    `{"timestamp":"${new Date().toISOString()}","type":"event_msg","payload":{"type":"agent_message","message":"hi"}}\n`,
  );
  const refreshCodexMs = await time(() =>
    codexRolloutScanner(codexHome, path.join(cacheDir, rollouts!.id)).refresh([rolloutFile]),
  );
  fs.appendFileSync(appendTo, claudeAppendLine(Date.now()));
  // What the companion's watcher does today: the sources walk the roots and check every size.
  const fullRefreshMs = await time(async () => {
    await usage!.read(context("claude", claudeHome, usage!.id));
    await limits!.read(context("claude", claudeHome, limits!.id));
  });
  const report: ChildReport = {
    claudeColdMs,
    codexColdMs,
    refreshClaudeMs,
    refreshCodexMs,
    fullRefreshMs,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    blockTokens,
    corrupt: usageScanner.corruptLines,
  };
  console.log(JSON.stringify(report));
}

async function runChild(dirs: string[], cacheDir: string): Promise<ChildReport> {
  const { stdout } = await execa(
    process.execPath,
    [fileURLToPath(import.meta.url), "--child", ...dirs.slice(0, 2), cacheDir, dirs[2]!],
    {
      timeout: 600_000,
    },
  );
  return childReportSchema.parse(JSON.parse(stdout.trim().split("\n").at(-1)!));
}

/** The part of `ccusage blocks --json` (20.0.24) the table shows. */
const ccusageSchema = z.object({ blocks: z.array(z.object({ isActive: z.boolean(), totalTokens: z.number() })) });

async function runCcusage(
  claudeHome: string,
  home: string,
): Promise<{ ms: number; peakRssMb?: number; tokens?: number }> {
  const timeBin = fs.existsSync("/usr/bin/time") ? "/usr/bin/time" : undefined;
  const args = ["blocks", "--json", "--offline"];
  const env = { PATH: process.env.PATH, HOME: home, CLAUDE_CONFIG_DIR: claudeHome, NO_COLOR: "1", TZ: "UTC" };
  const t0 = performance.now();
  const result = timeBin
    ? await execa(timeBin, ["-f", "offrun-peak-kb %M", ccusageBin, ...args], {
        env,
        extendEnv: false,
        timeout: 600_000,
      })
    : await execa(ccusageBin, args, { env, extendEnv: false, timeout: 600_000 });
  const ms = performance.now() - t0;
  const peak = /offrun-peak-kb (\d+)/.exec(result.stderr)?.[1];
  const blocks = ccusageSchema.safeParse(JSON.parse(result.stdout));
  const active = blocks.data?.blocks.find((block) => block.isActive)?.totalTokens;
  return {
    ms,
    ...(peak ? { peakRssMb: Number(peak) / 1024 } : {}),
    ...(active === undefined ? {} : { tokens: active }),
  };
}

async function main(): Promise<void> {
  if (!fs.existsSync(ccusageBin)) throw new Error(`ccusage is not installed: run node scripts/install-test-clis.mjs`);
  const parent = process.env.BENCH_DIR ?? (fs.existsSync("/dev/shm") ? "/dev/shm" : os.tmpdir());
  const dir = fs.mkdtempSync(path.join(parent, "offrun-quota-bench-"));
  try {
    const claudeHome = path.join(dir, "claude");
    const codexHome = path.join(dir, "codex");
    const now = Date.now();
    process.stdout.write(
      `generating ${(CLAUDE_BYTES / 1e9).toFixed(2)} GB of Claude sessions and ${(CODEX_BYTES / 1e6).toFixed(0)} MB of Codex rollouts in ${dir} ... `,
    );
    const t0 = performance.now();
    const newest = writeClaudeHistory(claudeHome, CLAUDE_SESSIONS, CLAUDE_BYTES, now);
    writeCodexHistory(codexHome, CODEX_FILES, CODEX_BYTES, now);
    const size = (folder: string) => Number(execFileSync("du", ["-sb", folder], { encoding: "utf8" }).split("\t")[0]);
    const [claudeMb, codexMb] = [claudeHome, codexHome].map((home) => (size(home) / 1e6).toFixed(0));
    console.log(`done in ${((performance.now() - t0) / 1000).toFixed(1)} s (${claudeMb} MB + ${codexMb} MB)`);

    const ours: ChildReport[] = [];
    const theirs: Awaited<ReturnType<typeof runCcusage>>[] = [];
    // Interleaved, best of RUNS: both read the same files from the same (warm) page cache.
    for (let run = 0; run < RUNS; run++) {
      theirs.push(await runCcusage(claudeHome, dir));
      ours.push(await runChild([claudeHome, codexHome, newest], path.join(dir, `cache-${run}`)));
    }
    const warm = await runChild([claudeHome, codexHome, newest], path.join(dir, "cache-0"));
    const best = <T>(items: T[], key: (item: T) => number) => items.reduce((a, b) => (key(b) < key(a) ? b : a));
    const us = best(ours, (r) => r.claudeColdMs);
    const them = best(theirs, (r) => r.ms);
    const ratio = us.claudeColdMs / them.ms;
    const refresh = Math.max(us.refreshClaudeMs, us.refreshCodexMs);
    const peak = Math.max(...ours.map((r) => r.peakRssMb));
    const fmt = (n: number | undefined, unit: string) =>
      n === undefined ? "—" : `${n.toFixed(n < 10 ? 1 : 0)} ${unit}`;
    const rows: [string, string, string, string, string][] = [
      ["measure", "offrun", "ccusage", "ratio", "target"],
      [
        `cold scan, Claude (${claudeMb} MB)`,
        fmt(us.claudeColdMs, "ms"),
        fmt(them.ms, "ms"),
        `${ratio.toFixed(2)}x`,
        `≤ 1.5x ${ratio <= 1.5 ? "PASS" : "FAIL"}`,
      ],
      [`cold scan, Codex (${codexMb} MB)`, fmt(us.codexColdMs, "ms"), "—", "", ""],
      ["refresh, 1 line appended", fmt(refresh, "ms"), "—", "", `< 50 ms ${refresh < 50 ? "PASS" : "FAIL"}`],
      ["refresh by directory walk", fmt(us.fullRefreshMs, "ms"), "—", "", ""],
      ["restart from cache + walk", fmt(warm.claudeColdMs + warm.codexColdMs, "ms"), "—", "", ""],
      ["peak RSS", fmt(peak, "MB"), fmt(them.peakRssMb, "MB"), "", `< 200 MB ${peak < 200 ? "PASS" : "FAIL"}`],
      [
        "current 5-hour block, tokens",
        String(ours[0]!.blockTokens ?? "—"),
        String(theirs[0]!.tokens ?? "—"),
        "",
        "(should match)",
      ],
    ];
    const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
    for (const row of rows) console.log(row.map((cell, i) => cell.padEnd(widths[i]!)).join("  "));
    if (ratio > 1.5 || refresh >= 50 || peak >= 200) process.exitCode = 1;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === "--child") {
  const [claudeHome, codexHome, cacheDir, appendTo] = process.argv.slice(3) as [string, string, string, string];
  await child(claudeHome, codexHome, cacheDir, appendTo);
} else {
  await main();
}
