import fs from "node:fs/promises";
import path from "node:path";
import { execa, type ResultPromise } from "execa";
import { piSessionFolder } from "../../src/harnesses/pi/session-files.js";
import { eventually, makeSandbox, OFFRUN_BIN, PROJECT_ROOT, type Sandbox } from "../helpers/offrun.js";
import { recordingNotifySend, withNotifySend } from "../helpers/notify-send.js";

// Pi and Gemini CLI sessions started outside Offrun, told from their session files by a real
// `offrun companion run`: real folder watches on the Default logins' homes in a temp HOME, real
// node-notifier running a recording notify-send first on PATH. The files are the real CLIs' own
// (test/fixtures/record-transcripts.ts pi gemini), appended in the batches the CLI wrote them.
const PI = path.join(PROJECT_ROOT, "test/fixtures/pi/0.73.1");
const GEMINI = path.join(PROJECT_ROOT, "test/fixtures/gemini/0.61.0");

let box: Sandbox;
let recorded: () => Promise<string[][]>;
let companion: ResultPromise | undefined;

interface Recorded {
  lines: string[];
  arrivalsMs: number[];
  file: string;
  cwd: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** A recorded session file with the file name the CLI gave it and the cwd it ran in. */
async function fixture(dir: string, name: string): Promise<Recorded> {
  const lines = (await fs.readFile(path.join(dir, "transcripts", `${name}.jsonl`), "utf8")).split("\n").filter(Boolean);
  const timing = JSON.parse(await fs.readFile(path.join(dir, "transcripts", `${name}.timing.json`), "utf8")) as {
    file: string;
    arrivalsMs: number[];
  };
  const meta = JSON.parse(await fs.readFile(path.join(dir, "transcripts.meta.json"), "utf8")) as {
    runs: { scenario: string; cwd?: string }[];
  };
  const cwd = meta.runs.find((r) => r.scenario === name && r.cwd)?.cwd ?? "";
  return { lines, arrivalsMs: timing.arrivalsMs, file: timing.file, cwd };
}

/** Appends lines in the batches the CLI wrote them (lines that reached the disk together go together). */
async function appendAsWritten(file: string, all: string[], arrivalsMs: number[]): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  let i = 0;
  while (i < all.length) {
    let j = i + 1;
    while (j < all.length && arrivalsMs[j] === arrivalsMs[i]) j++;
    await fs.appendFile(file, all.slice(i, j).join("\n") + "\n");
    i = j;
    await sleep(30);
  }
}

beforeAll(async () => {
  box = await makeSandbox("offrun-ext2-");
  const notifySend = await recordingNotifySend(box.dir);
  recorded = async () => (await notifySend.calls()).map((call) => call.slice(0, 2));
  await fs.writeFile(
    path.join(box.offrunHome, "config.json"),
    JSON.stringify({ notifications: { minIntervalSeconds: 0 } }),
  );
  // The Default logins' session folders exist, empty, when the companion starts (a folder that
  // appears later is only looked for every 5 s: the Codex test in external-sessions.test.ts covers that).
  await fs.mkdir(path.join(box.home, ".pi", "agent", "sessions"), { recursive: true });
  await fs.mkdir(path.join(box.home, ".gemini", "tmp"), { recursive: true });
  const log = path.join(box.offrunHome, "companion.log");
  companion = execa(process.execPath, [OFFRUN_BIN, "companion", "run"], {
    env: withNotifySend(box.env, notifySend),
    extendEnv: false,
    stdin: "ignore",
    reject: false,
    timeout: 120_000,
  });
  await eventually(
    async () => ((await fs.readFile(log, "utf8").catch(() => "")).includes("transcripts: watching") ? true : undefined),
    20_000,
    "the transcript watcher",
  );
}, 60_000);

afterAll(async () => {
  companion?.kill("SIGTERM");
  await companion;
  await box.cleanup();
});

test("an external Pi session notifies each turn end once, and a usage limit retried three times once", async () => {
  const turns = await fixture(PI, "turn-end");
  const sessions = path.join(box.home, ".pi", "agent", "sessions");
  const before = (await recorded()).length;
  await appendAsWritten(path.join(sessions, piSessionFolder(turns.cwd), turns.file), turns.lines, turns.arrivalsMs);
  await eventually(async () => ((await recorded()).length >= before + 2 ? true : undefined), 20_000, "two turn ends");
  const limit = await fixture(PI, "usage-limit");
  await appendAsWritten(path.join(sessions, piSessionFolder(limit.cwd), limit.file), limit.lines, limit.arrivalsMs);
  await eventually(async () => ((await recorded()).length >= before + 3 ? true : undefined), 10_000, "the limit");
  await sleep(1500);
  const told = (await recorded()).slice(before);
  expect(told.slice(0, 2)).toEqual([
    ["pi · repo: finished", "All 12 tests pass now; the flaky upload test waits for the server."],
    ["pi · repo: asks a question", "Should I also update the README?"],
  ]);
  expect(told.slice(2)).toHaveLength(1);
  expect(told[2]?.[0]).toBe("pi · repo: hit a limit");
  expect(told[2]?.[1]).toMatch(/^You have hit your usage limit\./);
}, 60_000);

test("an external Gemini CLI session notifies its turn end once, after it settled, and never its tool call's preamble", async () => {
  const session = await fixture(GEMINI, "turn-end");
  const project = path.join(box.home, ".gemini", "tmp", path.basename(session.cwd));
  // What 0.61.0 writes before the first chat file: the project folder's owner.
  await fs.mkdir(project, { recursive: true });
  await fs.writeFile(path.join(project, ".project_root"), session.cwd);
  const file = path.join(project, "chats", session.file);
  // The first turn: a reply with a tool call ("Writing hello.txt."), then the final reply.
  const firstEnd = session.lines.findIndex((l) => l.includes('"type":"gemini"') && l.includes("All 12 tests pass"));
  const before = (await recorded()).length;
  await appendAsWritten(file, session.lines.slice(0, firstEnd + 2), session.arrivalsMs);
  await sleep(2000);
  expect((await recorded()).length).toBe(before); // still settling
  await eventually(async () => ((await recorded()).length > before ? true : undefined), 10_000, "the turn end");
  await sleep(4000); // past another settle period: nothing else comes
  expect((await recorded()).slice(before)).toEqual([
    ["gemini · repo: finished", "All 12 tests pass now; the flaky upload test waits for the server."],
  ]);
  // The resumed session's second turn, ending on a question.
  await appendAsWritten(file, session.lines.slice(firstEnd + 2), session.arrivalsMs.slice(firstEnd + 2));
  await eventually(async () => ((await recorded()).length > before + 1 ? true : undefined), 10_000, "the question");
  await sleep(4000);
  expect((await recorded()).slice(before + 1)).toEqual([
    ["gemini · repo: asks a question", "Should I also update the README?"],
  ]);
}, 60_000);
