import fs from "node:fs/promises";
import path from "node:path";
import type { Snapshot } from "../../src/core/companion/snapshot.js";
import { eventually, makeSandbox, runOffrun, type Sandbox } from "../helpers/offrun.js";

// `offrun companion status` over a real OFFRUN_HOME: the snapshot a companion left, then a live one.

let box: Sandbox;
beforeAll(async () => {
  box = await makeSandbox("offrun-cst-");
});
afterAll(async () => {
  await runOffrun(["companion", "stop"], { env: box.env, cwd: box.dir });
  await box.cleanup();
});

const offrun = (...args: string[]) => runOffrun(args, { env: box.env, cwd: box.dir });

const LEFT: Snapshot = {
  version: 1,
  writtenAt: "2026-11-30T03:40:00.000Z",
  companion: { pid: 999_999, version: "test", startedAt: "2026-11-30T03:00:00.000Z" },
  counts: { working: 2, "needs-you": 1, idle: 3, limited: 0, failed: 0, done: 0 },
  agents: [],
  quota: [],
  notifications: [
    {
      kind: "needs-approval",
      title: "Claude Code · shop: needs approval",
      body: "npm install",
      project: "/work/shop",
      agent: "fin",
      at: "2026-11-30T03:39:00.000Z",
      outcome: "delivered",
    },
    {
      kind: "finished",
      title: "Claude Code · shop: finished",
      body: "Done.",
      project: "/work/shop",
      agent: "old",
      at: "2026-11-30T03:10:00.000Z",
      outcome: "delivered",
    },
  ],
};

test("with the companion down, status shows the counts and last notification it left, with their time", async () => {
  await fs.writeFile(path.join(box.offrunHome, "state.json"), JSON.stringify(LEFT));
  const json = await offrun("companion", "status", "--json");
  expect(json.exitCode).toBe(3);
  expect(JSON.parse(json.stdout)).toEqual({
    running: false,
    snapshot: { writtenAt: LEFT.writtenAt, counts: LEFT.counts, lastNotification: LEFT.notifications[0] },
  });
  const text = await offrun("companion", "status");
  expect(text.stdout).toContain("agents: 2 working, 1 need you, 3 idle (last written 2026-11-30T03:40:00.000Z)");
  expect(text.stdout).toContain(
    "last notification: Claude Code · shop: needs approval: npm install (2026-11-30T03:39:00.000Z, delivered)",
  );
});

test("with the companion running, status shows the snapshot it has just written", async () => {
  expect(await offrun("companion", "start")).toSucceed();
  type Status = {
    pid: number;
    snapshot: { writtenAt: string; counts: Record<string, number>; lastNotification?: unknown };
  };
  // The new companion rewrites the file just after it answers: no known project, so no agents and nothing notified yet.
  const status = await eventually(
    async () => {
      const read = JSON.parse((await offrun("companion", "status", "--json")).stdout) as Status;
      return read.snapshot.writtenAt > LEFT.writtenAt ? read : undefined;
    },
    10_000,
    "the companion's own snapshot",
  );
  expect(status.pid).toBeGreaterThan(0);
  expect(status.snapshot.counts).toEqual({ working: 0, "needs-you": 0, idle: 0, limited: 0, failed: 0, done: 0 });
  expect(status.snapshot.lastNotification).toBeUndefined();
  const text = await offrun("companion", "status");
  expect(text.stdout).toMatch(/running: pid \d+/);
  expect(text.stdout).toContain("agents: none (as of ");
  expect(text.stdout).toContain("last notification: none yet");
});
