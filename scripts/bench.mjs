#!/usr/bin/env node
// `npm run bench`: every benchmark in build/bench, one after another (they time the machine, so
// never two at once), each printing its own table. One that misses its target (exit code 1) does
// not stop the rest: all tables are printed, then a summary, and the run fails if any missed.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";

const BENCHES = [
  "start-to-spawn",
  "quota-scan",
  "notify-watch",
  "vocabulary",
  "menu-bar",
  "failover",
  "remote-ls",
  "ls-trust",
  "quarantine",
];
// Each is given this long; the slowest (failover, with the real CLIs) takes about a minute here.
const TIMEOUT_MS = 20 * 60_000;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const only = process.argv.slice(2);
const results = [];
for (const name of BENCHES.filter((b) => only.length === 0 || only.includes(b))) {
  console.log(`\n=== ${name}`);
  const started = Date.now();
  const run = await execa(process.execPath, [path.join(root, "build", "bench", `${name}.js`)], {
    stdio: "inherit",
    reject: false,
    timeout: TIMEOUT_MS,
  });
  const verdict = run.timedOut ? "timed out" : run.exitCode === 0 ? "met" : `NOT met (exit ${run.exitCode})`;
  results.push({ name, verdict, seconds: Math.round((Date.now() - started) / 1000) });
}
console.log("\n=== summary");
for (const { name, verdict, seconds } of results) console.log(`${name.padEnd(16)} ${verdict.padEnd(20)} ${seconds} s`);
if (results.some((r) => r.verdict !== "met")) process.exitCode = 1;
