import fs from "node:fs/promises";
import path from "node:path";
import { writeAgent } from "../../../../src/core/records/records.js";
import type { AgentRecord } from "../../../../src/core/foundation/model.js";
import { projectPaths, userPaths } from "../../../../src/core/foundation/paths.js";
import { recordObserved } from "../../../../src/core/quota/ledger.js";
import { readSnapshot, snapshotSchema } from "../../../../src/core/companion/snapshot.js";
import { markSignedOut } from "../../../../src/core/logins/sign-in.js";
import { writeSnapshots, type SnapshotWriter } from "../../../../src/core/companion/snapshot-writer.js";
import { eventually } from "../../../helpers/offrun.js";
import { listHarnesses } from "../../../../src/harnesses/registry.js";
import { locateBinary } from "../../../../src/core/foundation/binaries.js";

// In-process with real folder watches; isolate-env.ts points OFFRUN_HOME and HOME at temp folders.
// Chat lines are copied from a log the stub claude made (see test/integration/core/notify/notifier.test.ts).
const TURN = [
  '{"type":"user_message","text":"say hi","at":"2026-11-30T03:33:09.518Z","turn":1}',
  '{"type":"turn_start","harness":"claude","account":"default","mode":"build","resume":false,"at":"2026-11-30T03:33:09.524Z","turn":1}',
];
const TEXT = '{"type":"text","text":"Hello from the fake server.","at":"2026-11-30T03:33:09.532Z","turn":1}';
const APPROVAL =
  '{"type":"approval_request","id":"1.1","tool":"Bash","input":{"command":"npm install"},"text":"Bash: npm install","at":"2026-11-30T03:33:10.372Z","turn":1}';

let project: string;
let writer: SnapshotWriter | undefined;
const nudges: number[] = [];

beforeAll(async () => {
  project = path.join(process.env.HOME!, "shop");
  await fs.mkdir(projectPaths(project).chats, { recursive: true });
  await fs.mkdir(projectPaths(project).agents, { recursive: true });
  const record: AgentRecord = {
    version: 1,
    name: "fin",
    task: "say hi",
    harness: "claude",
    account: "default",
    mode: "build",
    project,
    worktree: projectPaths(project).worktree("fin"),
    branch: "offrun/fin",
    base: "0".repeat(40),
    port: 41001,
    status: "working",
    turns: 1,
    createdAt: "2026-11-30T03:33:09.500Z",
    updatedAt: "2026-11-30T03:33:09.524Z",
    turnStartedAt: "2026-11-30T03:33:09.524Z",
  };
  await writeAgent(record);
  await fs.writeFile(projectPaths(project).chat("fin"), TURN.join("\n") + "\n");
});
afterAll(async () => {
  await writer?.close();
});

test("the snapshot follows chat events, agent records and the quota cache, and is never seen half-written", async () => {
  const state = userPaths().state;
  writer = await writeSnapshots({
    companion: { pid: 4242, version: "test", startedAt: "2026-11-30T03:00:00.000Z" },
    notifications: () => [],
    log: (line) => {
      throw new Error(`unexpected log: ${line}`);
    },
    projects: async () => [project],
    onNeedsYou: () => nudges.push(Date.now()),
  });
  await writer.ready;
  const first = await readSnapshot(state);
  expect(first).toMatchObject({ companion: { pid: 4242 }, counts: { working: 1 } });
  expect(first!.agents[0]).toMatchObject({ name: "fin", status: "working", branch: "offrun/fin", port: 41001 });
  expect(first!.agents[0]!.lastWords).toBeUndefined();

  // A reader polling all along must parse every version it sees.
  let reads = 0;
  let torn = 0;
  let reading = true;
  const reader = (async () => {
    while (reading) {
      const raw = await fs.readFile(state, "utf8");
      reads++;
      if (!snapshotSchema.safeParse(JSON.parse(raw)).success) torn++;
    }
  })();

  await fs.appendFile(projectPaths(project).chat("fin"), TEXT + "\n" + APPROVAL + "\n");
  const agentFile = projectPaths(project).agent("fin");
  const record = JSON.parse(await fs.readFile(agentFile, "utf8")) as AgentRecord;
  await writeAgent({ ...record, status: "needs-you", updatedAt: "2026-11-30T03:33:10.372Z" });
  const waiting = await eventually(
    async () => {
      const snapshot = await readSnapshot(state);
      return snapshot?.agents[0]?.status === "needs-you" && snapshot.agents[0].lastWords ? snapshot : undefined;
    },
    5000,
    "needs-you with last words",
  );
  expect(waiting.counts["needs-you"]).toBe(1);
  // The menu bar was asked to read it once, after the write that showed the agent waiting.
  expect(nudges).toHaveLength(1);
  expect(waiting.agents[0]!.lastWords).toBe("Hello from the fake server.");
  expect(waiting.agents[0]!.pending).toEqual([
    { id: "1.1", kind: "approval", tool: "Bash", text: "Bash: npm install" },
  ]);

  const resetsAt = "2030-01-01T05:00:00.000Z";
  await recordObserved(
    { harness: "claude", label: "default" },
    {
      windows: [
        { kind: "five_hour", usedPercent: 42, resetsAt, source: "stream", observedAt: new Date().toISOString() },
      ],
      observedAt: new Date().toISOString(),
    },
  );
  const withQuota = await eventually(
    async () => {
      const snapshot = await readSnapshot(state);
      return snapshot?.quota.some((q) => q.windows.length > 0) ? snapshot : undefined;
    },
    5000,
    "the quota in the snapshot",
  );
  expect(withQuota.quota.find((q) => q.harness === "claude" && q.label === "default")).toMatchObject({
    windows: [{ kind: "five_hour", usedPercent: 42, resetsAt }],
    blocking: { kind: "five_hour", usedPercent: 42 },
  });

  reading = false;
  await reader;
  expect(reads).toBeGreaterThan(10);
  expect(torn).toBe(0);
});

test("each login carries its cached sign-in and its CLI's coverage; a sign-in change is a new snapshot", async () => {
  const state = userPaths().state;
  await markSignedOut({ harness: "gemini", label: "default" }, "Not logged in to Gemini CLI");
  const snapshot = await eventually(
    async () => {
      const read = await readSnapshot(state);
      const gemini = read?.quota.find((q) => q.harness === "gemini" && q.label === "default");
      return gemini?.signIn?.state === "signed-out" ? read : undefined;
    },
    5000,
    "the sign-in change in the snapshot",
  );
  expect(snapshot.quota.find((q) => q.harness === "gemini")).toMatchObject({
    coverage: "limits",
    signIn: { state: "signed-out", note: "Not logged in to Gemini CLI" },
  });
  expect(snapshot.quota.find((q) => q.harness === "claude" && q.label === "default")!.coverage).toBe("percent");
  // Whether each CLI is installed here, as offrun harnesses finds it: the menu bar leaves out the others.
  for (const row of snapshot.quota) {
    const harness = (await listHarnesses({ tolerant: true })).find((h) => h.id === row.harness)!;
    expect([row.harness, row.installed]).toEqual([
      row.harness,
      (await locateBinary(harness.id, harness.binaryName)) !== undefined,
    ]);
  }
});
