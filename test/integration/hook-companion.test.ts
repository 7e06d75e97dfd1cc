import fs from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { readSnapshot } from "../../src/core/companion/snapshot.js";
import { eventually, makeSandbox, OFFRUN_BIN, runOffrun, type Sandbox } from "../helpers/offrun.js";
import { recordingNotifySend, withNotifySend, type RecordingNotifySend } from "../helpers/notify-send.js";

// The built CLI (`npm run build:cli` first) end to end: `offrun hook codex <payload>` as Codex runs
// it, with the home as an argument and no OFFRUN_HOME in its env, then a real companion, real
// node-notifier and a recording notify-send first on PATH (as in test/integration/core/notify/notifier.test.ts).
const FIXTURES = path.resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "..", "fixtures");

let box: Sandbox;
let notifySend: RecordingNotifySend;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  box = await makeSandbox("offrun-hookc-");
  notifySend = await recordingNotifySend(box.dir);
  env = withNotifySend(box.env, notifySend);
});
afterAll(async () => {
  await box.cleanup();
});

const recorded = () => notifySend.calls();

test("a Codex turn handed to the hook becomes one notification and shows in the state snapshot", async () => {
  const fixture = JSON.parse(
    await fs.readFile(path.join(FIXTURES, "codex", "0.171.0", "hooks", "agent-turn-complete.json"), "utf8"),
  ) as { payload: Record<string, unknown> };
  const payload = JSON.stringify({ ...fixture.payload, cwd: path.join(box.dir, "shop") });
  const companion = execa(process.execPath, [OFFRUN_BIN, "companion", "run"], {
    env,
    extendEnv: false,
    stdin: "ignore",
    reject: false,
    timeout: 60_000,
  });
  try {
    const state = path.join(box.offrunHome, "state.json");
    const first = await eventually(() => readSnapshot(state), 20_000, "the first snapshot");
    expect(first.companion.pid).toBe(companion.pid);
    expect(first.counts).toEqual({ working: 0, "needs-you": 0, idle: 0, limited: 0, failed: 0, done: 0 });

    // Codex runs the hook without Offrun's env: the home travels as an argument.
    const codexEnv = Object.fromEntries(Object.entries(env).filter(([name]) => name !== "OFFRUN_HOME"));
    const hook = await runOffrun(["hook", "codex", `--offrun-home=${box.offrunHome}`, payload], { env: codexEnv });
    expect(hook).toMatchObject({ exitCode: 0, stdout: "" });
    // The same turn end again (Codex retried the notify program): still one notification.
    await runOffrun(["hook", "codex", `--offrun-home=${box.offrunHome}`, payload], { env: codexEnv });

    await eventually(async () => ((await recorded()).length === 1 ? true : undefined), 10_000, "one notify-send");
    expect((await recorded())[0]!.slice(0, 2)).toEqual(["codex · shop: finished", "Hello from the fake model."]);
    const after = await eventually(
      async () => ((await readSnapshot(state))?.notifications.length ? readSnapshot(state) : undefined),
      10_000,
      "the notification in the snapshot",
    );
    expect(after.notifications[0]).toMatchObject({ title: "codex · shop: finished", outcome: "delivered" });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await recorded()).toHaveLength(1);
  } finally {
    companion.kill("SIGTERM");
    await companion;
  }
});

// The case: one turn end seen twice, by the hook Codex runs and by the transcript watcher
// reading the same session's rollout (a recorded one; the hook payload names its thread).
test("the same turn end from the hook and from the transcript watcher notifies once", async () => {
  const rollout = path.join(
    FIXTURES,
    "codex/0.171.0/quota-home/sessions/2026/11/30/rollout-2026-11-30T02-17-32-01a22a3e-41cf-7b11-a197-77f734e7bb1d.jsonl",
  );
  const fixture = JSON.parse(
    await fs.readFile(path.join(FIXTURES, "codex", "0.171.0", "hooks", "agent-turn-complete.json"), "utf8"),
  ) as { payload: Record<string, unknown> };
  const payload = JSON.stringify({
    ...fixture.payload,
    "thread-id": "01a22a3e-41cf-7b11-a197-77f734e7bb1d",
    cwd: path.join(box.dir, "repo"),
    "last-assistant-message": "Listed.",
  });
  // The Default login's session folder exists before the companion starts, so it is watched at once.
  const day = path.join(box.home, ".codex", "sessions", "2026", "11", "30");
  await fs.mkdir(day, { recursive: true });
  const before = (await recorded()).length;
  const companion = execa(process.execPath, [OFFRUN_BIN, "companion", "run"], {
    env,
    extendEnv: false,
    stdin: "ignore",
    reject: false,
    timeout: 60_000,
  });
  try {
    await eventually(() => readSnapshot(path.join(box.offrunHome, "state.json")), 20_000, "the companion");
    const codexEnv = Object.fromEntries(Object.entries(env).filter(([name]) => name !== "OFFRUN_HOME"));
    await runOffrun(["hook", "codex", `--offrun-home=${box.offrunHome}`, payload], { env: codexEnv });
    await eventually(async () => ((await recorded()).length > before ? true : undefined), 10_000, "the hook's");
    // Codex wrote its rollout too: the watcher reads the same turn end.
    await fs.writeFile(path.join(day, path.basename(rollout)), await fs.readFile(rollout, "utf8"));
    await eventually(
      async () =>
        (await fs.readFile(path.join(box.offrunHome, "companion.log"), "utf8")).includes("transcripts")
          ? true
          : undefined,
      10_000,
      "the watcher",
    );
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect((await recorded()).slice(before).map((call) => call.slice(0, 2))).toEqual([
      ["codex · repo: finished", "Listed."],
    ]);
  } finally {
    companion.kill("SIGTERM");
    await companion;
  }
});
