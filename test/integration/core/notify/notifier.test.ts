import fs from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { Notifier } from "../../../../src/core/notify/notifier.js";
import { eventually, makeSandbox, OFFRUN_BIN, type Sandbox } from "../../../helpers/offrun.js";
import { recordingNotifySend, withNotifySend, type RecordingNotifySend } from "../../../helpers/notify-send.js";

// Real node-notifier (it runs `notify-send` on Linux) against a recording notify-send first on
// PATH, and real folder watches on a temp project. Chat lines are copied from a log that a stub claude
// replaying the 2.1.332 text-reply and live-approve fixtures made.
const FINISHED_TURN = [
  '{"type":"user_message","text":"say hi","at":"2026-11-30T03:33:09.518Z","turn":1}',
  '{"type":"turn_start","harness":"claude","account":"default","mode":"build","resume":false,"at":"2026-11-30T03:33:09.524Z","turn":1}',
  '{"type":"session","sessionId":"6becc817-faef-451a-9376-6ee42493e72b","model":"claude-opus-5-5","at":"2026-11-30T03:33:09.531Z","turn":1}',
  '{"type":"text","text":"Hello from the fake server.","at":"2026-11-30T03:33:09.532Z","turn":1}',
  '{"type":"usage","inputTokens":12,"outputTokens":5,"cacheReadTokens":0,"cacheWriteTokens":0,"costUsd":0.00014800000000000002,"at":"2026-11-30T03:33:09.534Z","turn":1}',
];
const TURN_END = '{"type":"turn_end","outcome":"completed","at":"2026-11-30T03:33:09.534Z","turn":1}';
const APPROVAL =
  '{"type":"approval_request","id":"1.1","tool":"Bash","input":{"command":"node -e \\"require(\'fs\').writeFileSync(\'approved.txt\',\'yes\')\\""},"text":"Bash: node -e \\"require(\'fs\').writeFileSync(\'approved.tx…","alwaysKey":"Bash(node -e \\"require(\'fs\').writeFileSync(\'approved.txt\',\'yes\')\\")","at":"2026-11-30T03:33:10.372Z","turn":1}';

let box: Sandbox;
let notifySend: RecordingNotifySend;
let project: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  box = await makeSandbox("offrun-notify-");
  notifySend = await recordingNotifySend(box.dir);
  // Jest gives tests a copy of process.env that child_process never sees: the pipeline runs in
  // a real companion, whose environment node-notifier's notify-send call does inherit.
  env = withNotifySend(box.env, notifySend);
  project = path.join(box.dir, "shop");
  await fs.mkdir(path.join(project, ".offrun", "chats"), { recursive: true });
  await fs.writeFile(
    path.join(box.offrunHome, "projects.json"),
    JSON.stringify({ version: 1, projects: [{ root: project, lastUsedAt: new Date().toISOString() }] }),
  );
});
afterAll(async () => {
  await box.cleanup();
});

const recorded = () => notifySend.calls();

test("the companion notifies once per finished turn from appended chat lines, and an approval names its command", async () => {
  const companion = execa(process.execPath, [OFFRUN_BIN, "companion", "run"], {
    env,
    extendEnv: false,
    stdin: "ignore",
    reject: false,
    timeout: 60_000,
  });
  const log = path.join(box.offrunHome, "companion.log");
  try {
    await eventually(async () => ((await fs.readFile(log, "utf8")).includes("listening") ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 1000)); // the chat watcher starts after recovery
    const chat = path.join(project, ".offrun", "chats", "fin.jsonl");
    // The turn_end arrives in two writes: a partial line must wait for its end.
    await fs.appendFile(chat, FINISHED_TURN.join("\n") + "\n" + TURN_END.slice(0, 20));
    await new Promise((resolve) => setTimeout(resolve, 300));
    await fs.appendFile(chat, TURN_END.slice(20) + "\n");
    await eventually(async () => ((await recorded()).length === 1 ? true : undefined), 10_000, "one notification");
    expect((await recorded())[0]!.slice(0, 2)).toEqual([
      "fin (claude) · shop: finished",
      "Hello from the fake server.",
    ]);

    // The same turn_end offered twice (a replayed line) notifies once.
    await fs.appendFile(chat, TURN_END + "\n" + APPROVAL + "\n");
    await eventually(async () => ((await recorded()).length === 2 ? true : undefined), 10_000, "the approval");
    expect((await recorded())[1]!.slice(0, 2)).toEqual([
      "fin (claude) · shop: needs approval (Bash)",
      "node -e \"require('fs').writeFileSync('approved.txt','yes')\"",
    ]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await recorded()).toHaveLength(2);
    expect(await fs.readFile(log, "utf8")).not.toMatch(/notify:|could not be shown/);
  } finally {
    companion.kill("SIGTERM");
    await companion;
  }
});

const finished = (agent: string, turn: number) => ({
  kind: "finished" as const,
  agent,
  project,
  turn,
  title: "fin (claude) · shop: finished",
  body: "Done.",
  at: "2026-11-30T03:33:10.370Z",
});

// In-process, notify-send is out of reach (see above): a notification the policy lets through
// ends as "delivery-failed", which is also how a machine without notify-send looks.
const THROUGH = "delivery-failed";

test("quiet hours and switched-off kinds suppress; the rate limit spares approvals", async () => {
  await fs.writeFile(
    path.join(box.offrunHome, "config.json"),
    JSON.stringify({ notifications: { kinds: { failed: false }, quietHours: { from: "22:00", to: "07:00" } } }),
  );
  let now = new Date(2026, 0, 1, 23, 30);
  const notifier = new Notifier({ log: () => undefined, home: box.offrunHome, now: () => now });
  expect((await notifier.offer(finished("night", 1))).outcome).toBe("quiet-hours");
  now = new Date(2026, 0, 2, 9, 0);
  expect((await notifier.offer({ ...finished("day", 1), kind: "failed" })).outcome).toBe("disabled");
  expect((await notifier.offer(finished("day", 2))).outcome).toBe(THROUGH);
  expect((await notifier.offer(finished("day", 3))).outcome).toBe("rate-limited");
  const approval = { ...finished("day", 3), kind: "needs-approval" as const, requestId: "3.1" };
  expect((await notifier.offer(approval)).outcome).toBe(THROUGH);
  expect((await notifier.offer(approval)).outcome).toBe("duplicate");
  await fs.rm(path.join(box.offrunHome, "config.json"));
});

test("a bad config file is logged clearly and the defaults apply", async () => {
  await fs.writeFile(path.join(box.offrunHome, "config.json"), '{"notifications": {"quietHours": {"from": "10pm"}}}');
  const log: string[] = [];
  const notifier = new Notifier({ log: (l) => log.push(l), home: box.offrunHome });
  expect((await notifier.offer(finished("bad-config", 1))).outcome).toBe(THROUGH);
  expect(log.join("\n")).toContain("notifications.quietHours.from");
  await fs.rm(path.join(box.offrunHome, "config.json"));
});

test("a missing notify-send is logged, not thrown", async () => {
  const log: string[] = [];
  const notifier = new Notifier({ log: (l) => log.push(l), home: box.offrunHome });
  const record = await notifier.offer(finished("no-notify-send", 1));
  expect(record.outcome).toBe("delivery-failed");
  expect(log.join("\n")).toContain("could not be shown");
});
