import fs from "node:fs/promises";
import path from "node:path";
import { eventually, makeSandbox, runOffrun, PROJECT_ROOT, type Sandbox } from "../helpers/offrun.js";

// The companion keeps quota current by watching each login's session folder: a rollout line
// appended by a Codex session in another terminal shows in `offrun quota` without a refresh.

const RECORDED = path.join(PROJECT_ROOT, "test", "fixtures", "codex", "0.171.0", "quota-home", "sessions");

let box: Sandbox;
beforeAll(async () => {
  box = await makeSandbox("offrun-qwatch-");
});
afterAll(async () => {
  await box.cleanup();
});

interface Row {
  harness: string;
  label: string;
  windows: { kind: string; usedPercent?: number }[];
}

test("a login added while the companion runs is watched, and an appended rollout line updates its quota", async () => {
  const env = { ...box.env, CODEX_HOME: path.join(box.home, ".codex") };
  const offrun = (...args: string[]) => runOffrun(args, { env, cwd: box.dir });
  expect(await offrun("companion", "start")).toSucceed();

  const home = path.join(box.dir, "codex-side");
  await fs.cp(RECORDED, path.join(home, "sessions"), { recursive: true });
  // The recorded windows reset days after the recording (the weekly one on 2026-12-05), and a window
  // whose reset has passed reads as empty: the copies' resets move as far ahead of now as they were.
  const day = path.join(home, "sessions", "2026", "11", "30");
  const shift = Math.floor(Date.now() / 1000) - Math.floor(Date.parse("2026-11-30T02:17:32Z") / 1000);
  for (const name of await fs.readdir(day)) {
    const text = await fs.readFile(path.join(day, name), "utf8");
    await fs.writeFile(
      path.join(day, name),
      text.replace(/"resets_at":(\d+)/g, (_all, at: string) => `"resets_at":${Number(at) + shift}`),
    );
  }
  expect(await offrun("logins", "add", "codex", "side", "--home", home, "--no-login")).toSucceed();

  const rollout = (await fs.readdir(day)).sort()[0]!;
  const file = path.join(day, rollout);
  const lines = (await fs.readFile(file, "utf8")).trim().split("\n");
  const recorded = lines.findLast((line) => line.includes('"token_count"'))!;
  const resetsAt = Math.floor(Date.now() / 1000) + 3600;
  // The recorded line, with a new time and new figures: what the CLI appends after its next answer.
  const appended = recorded
    .replace(/"timestamp":"[^"]+"/, `"timestamp":"${new Date().toISOString()}"`)
    .replace(
      /"primary":\{"used_percent":[\d.]+,"window_minutes":300,"resets_at":\d+\}/,
      `"primary":{"used_percent":77.0,"window_minutes":300,"resets_at":${resetsAt}}`,
    );
  expect(appended).toContain('"used_percent":77.0');

  await eventually(
    async () => {
      const rows = JSON.parse((await offrun("quota", "--json")).stdout) as Row[];
      return rows.some((r) => r.label === "side" && r.windows.length > 0) ? true : undefined;
    },
    20_000,
    "a first reading of the new login",
  );
  await fs.appendFile(file, `${appended}\n`);

  const updated = await eventually(
    async () => {
      const rows = JSON.parse((await offrun("quota", "--json")).stdout) as Row[];
      const side = rows.find((r) => r.harness === "codex" && r.label === "side");
      return side?.windows.find((w) => w.kind === "five_hour")?.usedPercent === 77 ? side : undefined;
    },
    20_000,
    "the appended line to show in offrun quota",
  );
  expect(updated.windows.find((w) => w.kind === "five_hour")?.usedPercent).toBe(77);
});
