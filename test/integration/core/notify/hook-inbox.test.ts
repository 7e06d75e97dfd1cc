import fs from "node:fs/promises";
import path from "node:path";
import {
  ExternalNotifications,
  type ExternalOutcome,
  type ExternalSignal,
} from "../../../../src/core/notify/external.js";
import { followHookInbox, type HookInbox } from "../../../../src/core/notify/hook-inbox.js";
import { Notifier } from "../../../../src/core/notify/notifier.js";
import { eventually, makeSandbox, type Sandbox } from "../../../helpers/offrun.js";

// Real chokidar on a temp OFFRUN_HOME; lines as hook-entry.ts writes them, payloads from the
// recorded fixtures (test/fixtures/<cli>/<version>/hooks/), with a fresh receivedAt.
const FIXTURES = path.resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "../../..", "fixtures");

let box: Sandbox;
let inbox: string;
let offered: { signal: ExternalSignal; outcome: ExternalOutcome }[];
let log: string[];
let follower: HookInbox | undefined;

beforeEach(async () => {
  box = await makeSandbox("offrun-inbox-");
  inbox = path.join(box.offrunHome, "inbox", "hooks.jsonl");
  offered = [];
  log = [];
});
afterEach(async () => {
  await follower?.close();
  follower = undefined;
  await box.cleanup();
});

async function start(rotateBytes?: number): Promise<HookInbox> {
  // A fresh instance each time, as after a companion restart: nothing remembered in memory.
  const notifier = new Notifier({ log: () => undefined, home: box.offrunHome });
  const external = new ExternalNotifications(notifier, { projects: async () => [] });
  follower = await followHookInbox({
    home: box.offrunHome,
    log: (line) => log.push(line),
    rotateBytes,
    external: {
      offer: async (signal) => {
        const outcome = await external.offer(signal);
        offered.push({ signal, outcome });
        return outcome;
      },
    },
  });
  await follower.ready;
  return follower;
}

async function line(cli: string, version: string, event: string): Promise<string> {
  const text = await fs.readFile(path.join(FIXTURES, cli, version, "hooks", `${event}.json`), "utf8");
  const entry = JSON.parse(text) as Record<string, unknown>;
  return JSON.stringify({ ...entry, receivedAt: new Date().toISOString() }) + "\n";
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 600));

it("an inbox line becomes one signal, and the same Stop handed over twice notifies once", async () => {
  await start();
  const stop = await line("claude", "2.1.332", "Stop");
  await fs.appendFile(inbox, stop);
  await eventually(async () => (offered.length === 1 ? true : undefined), 5000, "the Stop");
  expect(offered[0]!.signal).toMatchObject({
    harness: "claude",
    source: "hook",
    kind: "finished",
  });
  expect(offered[0]!.signal.text).toBe("Hello from the fake model.");
  expect(offered[0]!.outcome).not.toBe("duplicate");
  await fs.appendFile(inbox, stop);
  await eventually(async () => (offered.length === 2 ? true : undefined), 5000, "the second Stop");
  expect(offered[1]!.outcome).toBe("duplicate");
});

it("garbage lines are logged and skipped, and a line split across two writes waits for its end", async () => {
  await start();
  const codex = await line("codex", "0.171.0", "agent-turn-complete");
  await fs.appendFile(
    inbox,
    'not json\n{"harness":"claude"}\n{"harness":"nope","receivedAt":"' + new Date().toISOString() + '","payload":{}}\n',
  );
  await fs.appendFile(inbox, codex.slice(0, 40));
  await settle();
  expect(offered).toHaveLength(0);
  await fs.appendFile(inbox, codex.slice(40));
  await eventually(async () => (offered.length === 1 ? true : undefined), 5000, "the Codex turn");
  expect(offered[0]!.signal).toMatchObject({ harness: "codex", eventId: "01a22ab6-4ab6-7e40-a939-4a11c0f07c7e" });
  expect(log.join("\n")).toMatch(/not JSON/);
  expect(log.join("\n")).toMatch(/unknown harness 'nope'/);
  expect(log.filter((l) => l.startsWith("hooks: skipped"))).toHaveLength(3);
});

it("a restart neither offers again what was read nor misses what came while it was down", async () => {
  await start();
  await fs.appendFile(inbox, await line("claude", "2.1.332", "Stop"));
  await eventually(async () => (offered.length === 1 ? true : undefined), 5000, "the Stop");
  await follower!.close();
  follower = undefined;
  await fs.appendFile(inbox, await line("gemini", "0.61.0", "AfterAgent"));
  await start();
  await settle();
  expect(offered.map((o) => o.signal.harness)).toEqual(["claude", "gemini"]);
  expect(offered[1]!.outcome).not.toBe("duplicate");
});

it("a fully read inbox is compacted, and lines written after that still arrive", async () => {
  await start(100);
  await fs.appendFile(inbox, await line("claude", "2.1.332", "Stop"));
  await eventually(async () => (offered.length === 1 ? true : undefined), 5000, "the Stop");
  // Rotated aside, drained after the grace period, then deleted.
  await eventually(async () => ((await fs.stat(inbox).catch(() => undefined)) ? undefined : true), 5000, "rotation");
  await fs.appendFile(inbox, await line("codex", "0.171.0", "agent-turn-complete"));
  await eventually(async () => (offered.length === 2 ? true : undefined), 8000, "the line after rotation");
  await eventually(
    async () => ((await fs.stat(`${inbox}.rotated`).catch(() => undefined)) ? undefined : true),
    5000,
    "drained",
  );
  expect(offered.map((o) => o.signal.harness)).toEqual(["claude", "codex"]);
});
