import fs from "node:fs/promises";
import path from "node:path";
import { execa, type ResultPromise } from "execa";
import { claudeProjectFolder } from "../../src/harnesses/claude/session-files.js";
import { eventually, makeSandbox, OFFRUN_BIN, PROJECT_ROOT, type Sandbox } from "../helpers/offrun.js";
import { recordingNotifySend, withNotifySend, type RecordingNotifySend } from "../helpers/notify-send.js";

// Sessions started outside Offrun, told from their transcripts by a real `offrun companion run`:
// real folder watches on temp homes, real node-notifier running a recording notify-send first on PATH.
// The transcripts are the real CLIs' own files (test/fixtures/record-transcripts.ts and
// record-quota-sessions.ts), appended line by line in the batches the CLI wrote them.
const CLAUDE = path.join(PROJECT_ROOT, "test/fixtures/claude/2.1.332");
const CODEX_ROLLOUT = path.join(
  PROJECT_ROOT,
  "test/fixtures/codex/0.171.0/quota-home/sessions/2026/11/30/rollout-2026-11-30T02-17-32-01a22a3e-41cf-7b11-a197-77f734e7bb1d.jsonl",
);
const SUB_AGENT_DIR = path.join(
  CLAUDE,
  "quota-home/projects/-tmp-offrun-rec-quota-claude-Mv4PF3-repo/9c9e211a-45cf-403b-b4d6-44b2375067ba",
);

let box: Sandbox;
let notifySend: RecordingNotifySend;
let env: NodeJS.ProcessEnv;
let companion: ResultPromise | undefined;
let claudeProjects: string;

const lines = async (file: string) => (await fs.readFile(file, "utf8")).split("\n").filter((l) => l !== "");
/** Title and message of each notify-send call. */
const recorded = async () => (await notifySend.calls()).map((call) => call.slice(0, 2));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Appends lines in the batches the CLI wrote them (lines that reached the disk together go together). */
async function appendAsWritten(file: string, all: string[], arrivalsMs?: number[]): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  let i = 0;
  while (i < all.length) {
    let j = i + 1;
    while (arrivalsMs && j < all.length && arrivalsMs[j] === arrivalsMs[i]) j++;
    await fs.appendFile(file, all.slice(i, j).join("\n") + "\n");
    i = j;
    await sleep(30);
  }
}

async function startCompanion(): Promise<void> {
  const log = path.join(box.offrunHome, "companion.log");
  const before = (await fs.readFile(log, "utf8").catch(() => "")).split("transcripts: watching").length;
  companion = execa(process.execPath, [OFFRUN_BIN, "companion", "run"], {
    env,
    extendEnv: false,
    stdin: "ignore",
    reject: false,
    timeout: 120_000,
  });
  await eventually(
    async () => ((await fs.readFile(log, "utf8")).split("transcripts: watching").length > before ? true : undefined),
    20_000,
    "the transcript watcher",
  );
}

async function stopCompanion(): Promise<void> {
  companion?.kill("SIGTERM");
  await companion;
  companion = undefined;
}

beforeAll(async () => {
  box = await makeSandbox("offrun-ext-");
  notifySend = await recordingNotifySend(box.dir);
  env = withNotifySend(box.env, notifySend);
  // The Default logins' homes: ~/.claude exists with an old session; ~/.codex does not exist yet.
  claudeProjects = path.join(box.home, ".claude", "projects");
  const old = path.join(claudeProjects, "-old", "0ld00000-0000-0000-0000-000000000000.jsonl");
  await fs.mkdir(path.dirname(old), { recursive: true });
  await fs.copyFile(path.join(CLAUDE, "transcripts/turn-end.jsonl"), old);
  await fs.writeFile(
    path.join(box.offrunHome, "config.json"),
    JSON.stringify({ notifications: { minIntervalSeconds: 0 } }),
  );
  await startCompanion();
}, 60_000);

afterAll(async () => {
  await stopCompanion();
  await box.cleanup();
});

/** A Claude session file as the CLI names it, in the project folder of the fixture's cwd. */
async function claudeSession(
  name: string,
): Promise<{ file: string; lines: string[]; arrivalsMs: number[]; cwd: string }> {
  const all = await lines(path.join(CLAUDE, `transcripts/${name}.jsonl`));
  const timing = JSON.parse(await fs.readFile(path.join(CLAUDE, `transcripts/${name}.timing.json`), "utf8")) as {
    sessionId: string;
    arrivalsMs: number[];
  };
  const meta = JSON.parse(await fs.readFile(path.join(CLAUDE, "transcripts.meta.json"), "utf8")) as { cwd: string };
  const file = path.join(claudeProjects, claudeProjectFolder(meta.cwd), `${timing.sessionId}.jsonl`);
  return { file, lines: all, arrivalsMs: timing.arrivalsMs, cwd: meta.cwd };
}

test("an external Claude session that ends a turn notifies once with its last words, and a turn ending on a question asks it", async () => {
  const session = await claudeSession("turn-end");
  await appendAsWritten(session.file, session.lines, session.arrivalsMs);
  await eventually(async () => ((await recorded()).length >= 2 ? true : undefined), 10_000, "two notifications");
  await sleep(1000);
  expect(await recorded()).toEqual([
    ["claude · repo: finished", "All 12 tests pass now; the flaky upload test waits for the server."],
    ["claude · repo: asks a question", "Should I also update the README?"],
  ]);
}, 30_000);

test("a Claude session left on a tool call notifies that it needs approval, with the command", async () => {
  const session = await claudeSession("tool-approval");
  // What a session waiting on the user leaves on disk: everything up to the tool_use line.
  const cut = session.lines.findIndex((l) => l.includes('"tool_use"') && l.includes('"type":"assistant"'));
  expect(cut).toBeGreaterThan(0);
  const before = (await recorded()).length;
  await appendAsWritten(session.file, session.lines.slice(0, cut + 1));
  await sleep(3000);
  expect((await recorded()).length).toBe(before); // still inside the grace period
  await eventually(async () => ((await recorded()).length > before ? true : undefined), 10_000, "the approval");
  expect((await recorded())[before]).toEqual(["claude · repo: needs approval", "npm install left-pad"]);
}, 30_000);

test("a sub-agent's sidechain transcript never notifies, while its parent's turn end does", async () => {
  const before = (await recorded()).length;
  const parent = path.join(claudeProjects, "-sub", "9c9e211a-45cf-403b-b4d6-44b2375067ba.jsonl");
  const agent = path.join(
    path.dirname(parent),
    "9c9e211a-45cf-403b-b4d6-44b2375067ba",
    "subagents",
    "agent-aabbf3188b4a66383.jsonl",
  );
  await appendAsWritten(agent, await lines(path.join(SUB_AGENT_DIR, "subagents/agent-aabbf3188b4a66383.jsonl")));
  await sleep(1500);
  expect((await recorded()).length).toBe(before);
  await appendAsWritten(parent, await lines(`${SUB_AGENT_DIR}.jsonl`));
  await eventually(
    async () => ((await recorded()).length > before + 1 ? true : undefined),
    10_000,
    "the parent's turn ends",
  );
  await sleep(1000);
  // The parent ended a turn while its background sub-agent ran, and again after: never the sub-agent's "There is one file."
  expect((await recorded()).slice(before)).toEqual([
    ["claude · repo: finished", "The sub-agent counted one file."],
    ["claude · repo: finished", "Done."],
  ]);
}, 30_000);

test("a session of an agent Offrun runs does not notify through the watcher", async () => {
  const session = await claudeSession("turn-end");
  const project = path.join(box.dir, "shop");
  await fs.mkdir(path.join(project, ".offrun", "agents"), { recursive: true });
  const now = new Date().toISOString();
  const sessionId = "6becc817-faef-451a-9376-6ee42493e72b";
  const record = {
    version: 1,
    name: "fix-upload",
    task: "fix",
    harness: "claude",
    account: "default",
    mode: "build",
    project,
    worktree: path.join(project, ".worktrees", "fix-upload"),
    branch: "offrun/fix-upload",
    base: "0".repeat(40),
    port: 4100,
    sessionId,
    status: "idle",
    turns: 1,
    createdAt: now,
    updatedAt: now,
  };
  await fs.writeFile(path.join(project, ".offrun", "agents", "fix-upload.json"), JSON.stringify(record));
  await fs.writeFile(
    path.join(box.offrunHome, "projects.json"),
    JSON.stringify({ version: 1, projects: [{ root: project, lastUsedAt: now }] }),
  );
  await sleep(5500); // the companion reads agent records again after 5 s
  const before = (await recorded()).length;
  // The same CLI lines under the agent's session id, as its own session file.
  const own = path.join(path.dirname(session.file), `${sessionId}.jsonl`);
  await appendAsWritten(
    own,
    session.lines.map((l) => l.split(JSON.parse(session.lines[0]!).sessionId as string).join(sessionId)),
  );
  await sleep(2500);
  expect((await recorded()).length).toBe(before);
}, 30_000);

test("a Codex rollout's turn end notifies, in a home created after the companion started", async () => {
  const before = (await recorded()).length;
  const file = path.join(box.home, ".codex", "sessions", "2026", "11", "30", path.basename(CODEX_ROLLOUT));
  const all = await lines(CODEX_ROLLOUT);
  // The first turn only: the resume's turn end would follow within the dedupe window.
  const firstEnd = all.findIndex((l) => l.includes('"task_complete"'));
  await appendAsWritten(file, all.slice(0, firstEnd + 1));
  await eventually(async () => ((await recorded()).length > before ? true : undefined), 20_000, "the codex turn end");
  expect((await recorded()).slice(before)).toEqual([["codex · repo: finished", "First answer."]]);
}, 30_000);

test("a restarted companion resumes from the saved offsets: nothing is told twice, and what was written while it was down is told", async () => {
  const session = await claudeSession("slow-command");
  const firstEnd = session.lines.findIndex((l) => l.includes('"end_turn"'));
  await appendAsWritten(session.file, session.lines.slice(0, firstEnd + 1));
  await eventually(async () => ((await recorded()).at(-1)?.[1] === "Slept." ? true : undefined), 10_000, "Slept.");
  const told = (await recorded()).length;
  await sleep(1500); // offsets are saved within a second
  await stopCompanion();
  // While no companion runs, the session goes on: the turn-end fixture's two turns, under this session.
  const more = await claudeSession("turn-end");
  const id = (JSON.parse(more.lines[0]!) as { sessionId: string }).sessionId;
  const target = (JSON.parse(session.lines[0]!) as { sessionId: string }).sessionId;
  await appendAsWritten(
    session.file,
    more.lines.slice(0, more.lines.findIndex((l) => l.includes('"end_turn"')) + 1).map((l) => l.split(id).join(target)),
  );
  await startCompanion();
  await eventually(
    async () => ((await recorded()).length > told ? true : undefined),
    10_000,
    "the turn written while down",
  );
  await sleep(1500);
  expect((await recorded()).slice(told)).toEqual([
    ["claude · repo: finished", "All 12 tests pass now; the flaky upload test waits for the server."],
  ]);
}, 60_000);

test("a tool call still waiting when the companion restarts notifies once after the restart, and one told before it is not told again", async () => {
  const session = await claudeSession("tool-approval");
  const cut = session.lines.findIndex((l) => l.includes('"tool_use"') && l.includes('"type":"assistant"'));
  const original = (JSON.parse(session.lines[0]!) as { sessionId: string }).sessionId;
  const as = (id: string) => ({
    file: path.join(path.dirname(session.file), `${id}.jsonl`),
    lines: session.lines.slice(0, cut + 1).map((l) => l.split(original).join(id)),
  });
  const told = as("7e11d000-0000-4000-8000-000000000001");
  const waiting = as("3a171000-0000-4000-8000-000000000002");
  const before = (await recorded()).length;
  await appendAsWritten(told.file, told.lines);
  await eventually(async () => ((await recorded()).length > before ? true : undefined), 15_000, "the first approval");
  await appendAsWritten(waiting.file, waiting.lines);
  await sleep(1500); // the wait is saved within a second, and its grace period (6 s) is not over
  const beforeRestart = (await recorded()).length;
  await stopCompanion();
  await startCompanion();
  await eventually(
    async () => ((await recorded()).length > beforeRestart ? true : undefined),
    15_000,
    "the re-armed approval",
  );
  await sleep(8000); // past every grace period: nothing else comes
  expect((await recorded()).slice(before)).toEqual([
    ["claude · repo: needs approval", "npm install left-pad"],
    ["claude · repo: needs approval", "npm install left-pad"],
  ]);
  expect(beforeRestart - before).toBe(1);
}, 60_000);
