import fs from "node:fs/promises";
import { CompanionClient } from "../core/protocol/client.js";
import { OffrunError } from "../core/foundation/errors.js";
import { AGENT_STATUSES, type AgentStatus } from "../core/foundation/model.js";
import { userPaths } from "../core/foundation/paths.js";
import { isAlive } from "../core/foundation/pids.js";
import { readSnapshot, type Snapshot } from "../core/companion/snapshot.js";
import { companion } from "./context.js";
import { offrunVersion, output, print, type GlobalOptions } from "./output.js";

/** offrun companion run|start|status|stop */

async function tryPing() {
  try {
    const client = await CompanionClient.connect();
    try {
      return await client.ping();
    } finally {
      client.close();
    }
  } catch (error) {
    if (error instanceof OffrunError && error.kind === "companion_unavailable") return undefined;
    throw error;
  }
}

export async function run(options: { verbose?: boolean }): Promise<void> {
  // The whole core (supervisor, harnesses, git) loads only in the companion itself.
  const { runCompanion } = await import("../core/companion/run.js");
  await runCompanion({ version: offrunVersion(), echo: options.verbose });
  process.exit(0);
}

/** `ssh host offrun companion stdio`: this machine's companion (started if down) on stdin and stdout. */
export async function stdio(): Promise<void> {
  (await companion()).close();
  const { bridgeStdio } = await import("../core/remote/bridge.js");
  await bridgeStdio(process.stdin, process.stdout, (line) => print(process.stderr, `${line}\n`));
  process.exit(0);
}

export async function start(options: GlobalOptions): Promise<void> {
  const client = await companion();
  const info = await client.ping();
  client.close();
  output(options, info, () => `Companion running (pid ${info.pid}).`);
}

const STATUS_WORDS: Record<AgentStatus, string> = {
  working: "working",
  "needs-you": "need you",
  idle: "idle",
  limited: "limited",
  failed: "failed",
  done: "done",
};

/** What `status` adds from the companion's snapshot: the counts and the last notification. */
export interface SnapshotSummary {
  writtenAt: string;
  counts: Snapshot["counts"];
  lastNotification?: Snapshot["notifications"][number];
}

export function summarizeSnapshot(snapshot: Snapshot): SnapshotSummary {
  const last = snapshot.notifications[0];
  return { writtenAt: snapshot.writtenAt, counts: snapshot.counts, ...(last ? { lastNotification: last } : {}) };
}

/** "2 working, 1 need you, 3 idle" (statuses with none left out), and the last notification. */
export function describeSnapshot(summary: SnapshotSummary, live: boolean): string[] {
  const counts = AGENT_STATUSES.filter((s) => (summary.counts[s] ?? 0) > 0).map(
    (s) => `${summary.counts[s]} ${STATUS_WORDS[s]}`,
  );
  const lines = [
    `  agents: ${counts.length > 0 ? counts.join(", ") : "none"} (${live ? "as of" : "last written"} ${summary.writtenAt})`,
  ];
  const last = summary.lastNotification;
  lines.push(
    last
      ? `  last notification: ${last.title}: ${last.body} (${last.at}, ${last.outcome})`
      : "  last notification: none yet",
  );
  return lines;
}

export async function status(options: GlobalOptions): Promise<void> {
  const info = await tryPing();
  const paths = userPaths();
  // The snapshot is what the companion last wrote; when it is not running, that is said with its time.
  const snapshot = await readSnapshot();
  const summary = snapshot ? summarizeSnapshot(snapshot) : undefined;
  const data = { ...(info ?? { running: false }), ...(summary ? { snapshot: summary } : {}) };
  output(options, data, () => {
    const head = info
      ? `Companion ${info.version} running: pid ${info.pid}, since ${info.startedAt}, ${info.running} turn(s) in progress.`
      : "Companion not running. It starts by itself when needed, or run: offrun companion start";
    const facts = summary ? describeSnapshot(summary, info !== undefined) : [];
    const where = info ? [`  socket: ${paths.socket}`, `  log:    ${paths.companionLog}`] : [];
    return [head, ...facts, ...where].join("\n");
  });
  if (!info) process.exitCode = 3;
}

export async function stop(options: GlobalOptions): Promise<void> {
  const info = await tryPing();
  if (!info) return output(options, { stopped: false }, () => "Companion was not running.");
  const client = await CompanionClient.connect();
  await client.call("shutdown", {}).catch(() => undefined);
  client.close();
  const deadline = Date.now() + 15_000;
  while (isAlive(info.pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  if (isAlive(info.pid)) process.kill(info.pid, "SIGKILL");
  await fs.rm(userPaths().socket, { force: true });
  output(options, { stopped: true, pid: info.pid }, () => `Companion stopped (pid ${info.pid}).`);
}
