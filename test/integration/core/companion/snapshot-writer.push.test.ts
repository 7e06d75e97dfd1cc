import fs from "node:fs/promises";
import path from "node:path";
import type { AgentNotification } from "../../../../src/core/notify/classify.js";
import { Notifier, type NotificationRecord } from "../../../../src/core/notify/notifier.js";
import { userPaths } from "../../../../src/core/foundation/paths.js";
import { readSnapshot } from "../../../../src/core/companion/snapshot.js";
import { writeSnapshots, type SnapshotWriter } from "../../../../src/core/companion/snapshot-writer.js";
import { eventually } from "../../../helpers/offrun.js";

// In-process with real folder watches; isolate-env.ts points OFFRUN_HOME and HOME at temp folders.

const companion = { pid: 4242, version: "test", startedAt: "2026-11-30T03:00:00.000Z" };
const noLog = (line: string) => {
  throw new Error(`unexpected log: ${line}`);
};
let writer: SnapshotWriter | undefined;
afterEach(async () => {
  await writer?.close();
  writer = undefined;
});

function finished(agent: string): AgentNotification {
  return {
    kind: "finished",
    agent,
    project: "/work/shop",
    turn: 1,
    title: "claude · shop: finished",
    body: `${agent} is done`,
    at: new Date().toISOString(),
  };
}

test("a notification reaches the snapshot when it is offered, and an idle writer writes nothing", async () => {
  // Delivery is off, so no notify-send is needed; the offer is still recorded and told.
  await fs.writeFile(path.join(userPaths().home, "config.json"), '{"notifications": {"enabled": false}}');
  const notifier = new Notifier({ log: noLog });
  writer = await writeSnapshots({
    companion,
    notifications: () => notifier.recent(),
    subscribe: (listener) => notifier.subscribe(listener),
    log: noLog,
    projects: async () => [],
    safetyNetMs: 100,
  });
  await writer.ready;
  const first = await fs.stat(userPaths().state);
  // Several safety checks pass with nothing new: the file is not rewritten.
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect((await fs.stat(userPaths().state)).mtimeMs).toBe(first.mtimeMs);

  const offered = Date.now();
  await notifier.offer(finished("fin"));
  const snapshot = await eventually(
    async () => ((await readSnapshot())?.notifications.length ? await readSnapshot() : undefined),
    2000,
    "the notification in the snapshot",
  );
  expect(snapshot!.notifications[0]).toMatchObject({ agent: "fin", kind: "finished", outcome: "disabled" });
  // Pushed, not found by a poll: well inside the debounce plus a write.
  expect(Date.now() - offered).toBeLessThan(1000);
});

test("without a subscription, the safety check still writes a change it was not told of", async () => {
  const records: NotificationRecord[] = [];
  writer = await writeSnapshots({
    companion,
    notifications: () => records,
    log: noLog,
    projects: async () => [],
    safetyNetMs: 100,
  });
  await writer.ready;
  expect((await readSnapshot())!.notifications).toEqual([]);
  records.unshift({ ...finished("quiet"), outcome: "delivered" });
  const snapshot = await eventually(
    async () => ((await readSnapshot())?.notifications.length ? await readSnapshot() : undefined),
    2000,
    "the safety check's write",
  );
  expect(snapshot!.notifications[0]).toMatchObject({ agent: "quiet" });
});

test("a notifier tells each subscriber of every offer until it unsubscribes, and a failing one is logged", async () => {
  await fs.writeFile(path.join(userPaths().home, "config.json"), '{"notifications": {"enabled": false}}');
  const log: string[] = [];
  const notifier = new Notifier({ log: (line) => log.push(line) });
  const told: string[] = [];
  const unsubscribe = notifier.subscribe((record) => told.push(record.agent));
  notifier.subscribe(() => {
    throw new Error("boom");
  });
  await notifier.offer(finished("one"));
  await notifier.offer(finished("one")); // a duplicate is not news
  unsubscribe();
  await notifier.offer(finished("two"));
  expect(told).toEqual(["one"]);
  expect(log.filter((line) => line.includes("boom"))).toHaveLength(2);
});
