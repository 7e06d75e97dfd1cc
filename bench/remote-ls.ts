import fs from "node:fs/promises";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { execa } from "execa";
import { makeSandbox, OFFRUN_BIN, runOffrun, type Sandbox } from "../test/helpers/offrun.js";
import { fmt, projectWithAgents, stats, timed } from "./agents-fixture.js";
import { startSshd, type TestSshd } from "../test/helpers/sshd.js";

/**
 * `offrun ls` with 3 hosts and 30 agents (10 on each), over warm ssh connections: a fresh `offrun`
 * process from spawn to exit, as a person runs it. Target: under 150 ms. Beside it, in
 * the same run, `offrun ls` of one local project with 30 agents and no host: what the hosts add.
 * Each host is a real sshd on a loopback port with its own HOME and OFFRUN_HOME.
 */
const TARGET_MS = 150;
const HOSTS = 3;
const AGENTS_PER_HOST = 10;
const RUNS = 15;

async function main(): Promise<void> {
  const local = await makeSandbox("offrun-bench-rls-");
  const servers: TestSshd[] = [];
  const hosts: Sandbox[] = [];
  try {
    // The baseline: the same 30 agents in one local project, no hosts (another OFFRUN_HOME).
    const alone = await makeSandbox("offrun-bench-rls-alone-");
    hosts.push(alone);
    const aloneRoot = await projectWithAgents(alone, HOSTS * AGENTS_PER_HOST);
    for (let h = 0; h < HOSTS; h++) {
      const box = await makeSandbox(`offrun-bench-rls-h${h}-`);
      hosts.push(box);
      await projectWithAgents(box, AGENTS_PER_HOST);
      const bin = path.join(box.dir, "bin");
      await fs.mkdir(bin, { recursive: true });
      await fs.symlink(OFFRUN_BIN, path.join(bin, "offrun"));
      const env = {
        HOME: box.home,
        TMPDIR: box.tmp,
        OFFRUN_HOME: box.offrunHome,
        GIT_CONFIG_GLOBAL: box.env.GIT_CONFIG_GLOBAL!,
        GIT_CONFIG_NOSYSTEM: "1",
        PATH: [bin, path.dirname(process.execPath), "/usr/bin", "/bin"].join(path.delimiter),
      };
      const sshd = await startSshd(path.join(box.dir, "sshd"), env, [`h${h}`]);
      servers.push(sshd);
      const added = await runOffrun(["hosts", "add", `h${h}`, `h${h}`, "--ssh-config", sshd.config], {
        env: local.env,
      });
      if (added.exitCode !== 0) throw new Error(added.stderr);
    }
    // Warm: the companion running, every host connected and answering.
    for (;;) {
      const listed = await runOffrun(["ls", "--json"], { env: local.env, cwd: local.home });
      const data = JSON.parse(listed.stdout) as { remote: unknown[]; hosts: { ok: boolean }[] };
      if (data.hosts.every((h) => h.ok) && data.remote.length === HOSTS * AGENTS_PER_HOST) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const remote: number[] = [];
    const baseline: number[] = [];
    const bare: number[] = [];
    const version: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      remote.push(await timed(["ls"], local.env, local.home));
      baseline.push(await timed(["ls"], alone.env, aloneRoot));
      version.push(await timed(["--version"], local.env, local.home));
      const start = performance.now();
      await execa(process.execPath, ["-e", "0"], { env: local.env, extendEnv: false, stdin: "ignore" });
      bare.push(performance.now() - start);
    }
    const r = stats(remote);
    const b = stats(baseline);
    console.log(`offrun ls: ${HOSTS} hosts over warm ssh, ${HOSTS * AGENTS_PER_HOST} agents; ${RUNS} interleaved runs`);
    console.log(`${"".padEnd(44)} ${"min / median / max".padStart(22)}`);
    console.log(`${"3 hosts, 30 agents (spawn to exit)".padEnd(44)} ${fmt(r).padStart(22)}`);
    console.log(`${"baseline: 1 local project, 30 agents".padEnd(44)} ${fmt(b).padStart(22)}`);
    // What this machine takes to start Node at all, and offrun doing nothing: the floors under every row above.
    console.log(`${"for scale: offrun --version (spawn to exit)".padEnd(44)} ${fmt(stats(version)).padStart(22)}`);
    console.log(`${"for scale: node -e 0 (spawn to exit)".padEnd(44)} ${fmt(stats(bare)).padStart(22)}`);
    console.log(`${"ratio (median)".padEnd(44)} ${`${(r.median / b.median).toFixed(2)}x`.padStart(22)}`);
    const verdict = r.median < TARGET_MS ? "PASS" : "FAIL";
    console.log(`${"target: median under".padEnd(44)} ${`${TARGET_MS} ms ${verdict}`.padStart(22)}`);
    if (verdict === "FAIL") process.exitCode = 1;
  } finally {
    await local.cleanup();
    for (const server of servers) await server.close();
    for (const box of hosts) await box.cleanup();
  }
}

await main();
