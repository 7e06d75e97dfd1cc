import fs from "node:fs/promises";
import path from "node:path";
import { recordObserved } from "../../src/core/quota/ledger.js";
import { makeSandbox, runOffrun, type Sandbox } from "../helpers/offrun.js";

// `offrun quota` as a user reads it: every installed CLI's logins (custom ACP agents too), a
// signed-out login with its sign-in command, "no usage data: limits only" for a CLI whose
// sources only know limit hits, and the pace from a login's own recent readings.

interface Row {
  harness: string;
  label: string;
  windows: { kind: string; usedPercent?: number }[];
  coverage: "percent" | "limits";
  signIn: { state: string; note?: string; command?: string };
  pace: { runsOutAt?: string; lastsPastReset?: boolean };
}

let box: Sandbox;
let env: NodeJS.ProcessEnv;
const offrun = (...args: string[]) => runOffrun(args, { env, cwd: box.dir });

beforeAll(async () => {
  box = await makeSandbox("offrun-qcli-");
  // Stand-ins that only need to exist: `offrun quota` lists installed CLIs and runs none of them.
  const stub = path.join(box.dir, "bin", "stub");
  await fs.mkdir(path.dirname(stub), { recursive: true });
  await fs.writeFile(stub, "#!/bin/sh\nexit 0\n", { mode: 0o755 });
  // Gemini's Default login signed in with a key, as a user's would be: `accounts add` below starts
  // the companion, whose first sign-in round would otherwise find no auth method and call it
  // signed out (which the table shows instead of its quota).
  await fs.mkdir(path.join(box.home, ".gemini"), { recursive: true });
  await fs.writeFile(
    path.join(box.home, ".gemini", "settings.json"),
    JSON.stringify({ security: { auth: { selectedType: "gemini-api-key" } } }),
  );
  // Times on a 24-hour clock, whatever the machine's locale (docs/cli.md: the clock setting).
  await fs.writeFile(path.join(box.offrunHome, "config.json"), JSON.stringify({ clock: "24h" }));
  env = { ...box.env, OFFRUN_CLAUDE_BIN: stub, OFFRUN_GEMINI_BIN: stub, GEMINI_API_KEY: "test" };
  await fs.writeFile(
    path.join(box.offrunHome, "harnesses.json"),
    JSON.stringify({ harnesses: [{ id: "kiro", displayName: "Kiro", command: stub, args: ["acp"] }] }),
  );
  for (const label of ["work", "gone"]) {
    expect(await offrun("logins", "add", "claude", label, "--no-login")).toSucceed();
  }
  // A home deleted while Offrun knew the login: it cannot run, so it is signed out.
  await fs.rm(path.join(box.offrunHome, "accounts", "claude", "gone"), { recursive: true, force: true });

  // Three readings ten minutes apart, 10% each: at 40% ten minutes ago, 100% comes in 50 minutes.
  process.env.OFFRUN_HOME = box.offrunHome;
  const now = Date.now();
  const at = (minutes: number) => new Date(now + minutes * 60_000).toISOString();
  for (const [minutes, usedPercent] of [
    [-30, 20],
    [-20, 30],
    [-10, 40],
  ] as const) {
    const window = { kind: "five_hour", usedPercent, resetsAt: at(240), source: "stream", observedAt: at(minutes) };
    await recordObserved({ harness: "claude", label: "work" }, { windows: [window], observedAt: at(minutes) });
  }
});

afterAll(async () => {
  await box.cleanup();
});

test("lists installed CLIs and custom agents, leaves out CLIs that are not installed", async () => {
  const result = await offrun("quota", "--json");
  expect(result).toSucceed();
  const rows = JSON.parse(result.stdout) as Row[];
  const harnesses = new Set(rows.map((r) => r.harness));
  expect(harnesses).toEqual(new Set(["claude", "gemini", "kiro"]));
  expect(rows.filter((r) => r.harness === "claude").map((r) => r.label)).toEqual(["default", "work", "gone"]);
});

test("a signed-out login reads as such with its sign-in command, in json and in the table", async () => {
  const rows = JSON.parse((await offrun("quota", "--json")).stdout) as Row[];
  const gone = rows.find((r) => r.harness === "claude" && r.label === "gone")!;
  expect(gone.signIn).toMatchObject({ state: "signed-out", command: "offrun logins login claude gone" });
  expect(gone.signIn.note).toContain("does not exist");
  expect(rows.find((r) => r.label === "work")!.signIn.state).not.toBe("signed-out");

  const text = (await offrun("quota")).stdout;
  const line = text.split("\n").find((l) => l.includes("Claude Code · gone"))!;
  expect(line).toContain("SIGNED OUT");
  expect(line).toContain("sign in: offrun logins login claude gone");
  expect(line).not.toContain("unknown");
});

test("a limits-only CLI with no window says so instead of unknown", async () => {
  const rows = JSON.parse((await offrun("quota", "--json")).stdout) as Row[];
  expect(rows.find((r) => r.harness === "gemini")).toMatchObject({ coverage: "limits", windows: [] });
  const text = (await offrun("quota")).stdout;
  for (const name of ["Gemini CLI · default", "Kiro · default"]) {
    const line = text.split("\n").find((l) => l.startsWith(name))!;
    expect(line).toContain("no usage data: limits only");
    expect(line).not.toContain("unknown");
  }
});

// The PACE column was always "-" and nothing said what it meant.
test("PACE is the share used over the share of the window gone by, then when it runs out at this pace", async () => {
  const lines = (await offrun("quota")).stdout.split("\n");
  expect(lines[0]).toMatch(/^LOGIN\s+WINDOW\s+PACE\s+SOURCE\s+AGE$/);
  const line = lines.find((l) => l.includes("Claude Code · work"))!;
  // 40% used, 1 of the window's 5 hours gone (it resets in 4): twice as fast as the window allows.
  expect(line).toMatch(
    /5-Hour 40% used · resets (\w{3} )?\d\d:\d\d ◀\s+2\.0× · out ~(\w{3} )?\d\d:\d\d at this pace\s+stream/,
  );
});

test("the pace comes from the login's own recent readings", async () => {
  const rows = JSON.parse((await offrun("quota", "--json")).stdout) as Row[];
  const work = rows.find((r) => r.harness === "claude" && r.label === "work")!;
  expect(work.pace.runsOutAt).toBeDefined();
  expect(Math.abs(Date.parse(work.pace.runsOutAt!) - (Date.now() + 50 * 60_000))).toBeLessThan(2 * 60_000);
  const line = (await offrun("quota")).stdout.split("\n").find((l) => l.includes("Claude Code · work"))!;
  // 50 minutes from now: after 23:10 that is tomorrow, which names the day.
  expect(line).toMatch(/out ~(\w{3} )?\d\d:\d\d at this pace/);
  expect(rows.find((r) => r.label === "default" && r.harness === "claude")!.pace).toEqual({});
});
