import fs from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import {
  eventually,
  makeRepo,
  makeSandbox,
  OFFRUN_BIN,
  runOffrun,
  startOffrun,
  type Sandbox,
} from "../helpers/offrun.js";
import { recordingNotifySend } from "../helpers/notify-send.js";
import { agentRecord } from "../helpers/records.js";
import { HIDDEN, obeyed, SPELLED } from "../helpers/control-characters.js";

const at = "2026-12-04T04:00:00.000Z";
const line = (event: Record<string, unknown>) => JSON.stringify({ at, turn: 1, ...event });

let box: Sandbox;
let repo: string;

beforeAll(async () => {
  box = await makeSandbox("offrun-ctl-");
  repo = await makeRepo(path.join(box.dir, "shop"), box.env);
  await fs.mkdir(path.join(repo, ".offrun", "agents"), { recursive: true });
  await fs.mkdir(path.join(repo, ".offrun", "chats"), { recursive: true });
  await fs.writeFile(
    path.join(box.offrunHome, "projects.json"),
    JSON.stringify({ version: 1, projects: [{ root: repo, lastUsedAt: new Date().toISOString() }] }),
  );
});
afterAll(async () => {
  await box.cleanup();
});

/** An agent on disk, as a companion leaves it, whose chat log holds `events`; returns `offrun show`'s stdout. */
async function showAgent(name: string, events: Record<string, unknown>[], changes = {}): Promise<string> {
  await fs.writeFile(
    path.join(repo, ".offrun", "agents", `${name}.json`),
    JSON.stringify(agentRecord(repo, name, changes)),
  );
  const chat = [{ type: "user_message", text: "tidy up" }, ...events].map(line).join("\n") + "\n";
  await fs.writeFile(path.join(repo, ".offrun", "chats", `${name}.jsonl`), chat);
  const shown = await runOffrun(["show", name], { env: box.env, cwd: repo });
  expect(shown).toSucceed();
  return shown.stdout;
}

test("offrun show spells out the control characters of a tool call's command, so it reads as it would run", async () => {
  const stdout = await showAgent("cmd", [{ type: "tool_call", id: "t1", name: "Bash", input: { command: HIDDEN } }]);
  expect(stdout).toContain(`⚙ Bash ${SPELLED}`);
  expect(obeyed(stdout)).toEqual([]);
});

test("offrun show spells out control characters in a question, in the agent's text and in a tool's name", async () => {
  const stdout = await showAgent("words", [
    { type: "text", text: `I will run only ls.\r\x1b[2KAll done.` },
    { type: "tool_call", id: "t1", name: "Bash\x1b]0;owned\x07\r", input: { command: "ls" } },
    { type: "question", id: "q1", text: `May I delete the cache?\r\x1b[1A\x1b[2K` },
  ]);
  expect(stdout).toContain("I will run only ls.\\r\\x1b[2KAll done.");
  expect(stdout).toContain("⚙ Bash\\x1b]0;owned\\x07\\r ls");
  expect(stdout).toContain("May I delete the cache?\\r\\x1b[1A\\x1b[2K");
  expect(obeyed(stdout)).toEqual([]);
  // The reply stays on its lines: only what could hide text is spelled out.
  expect(stdout).toContain("‹ agent\nI will run only ls.");
});

test("offrun show --json escapes what JSON.stringify leaves raw (C1, bidi), and scripts read the same text", async () => {
  const text = "ok\u009b2K\u202etxt.exe\u007f";
  await showAgent("json", [{ type: "text", text }]);
  const shown = await runOffrun(["show", "json", "--json"], { env: box.env, cwd: repo });
  expect(shown).toSucceed();
  expect(obeyed(shown.stdout)).toEqual([]);
  expect(shown.stdout).toContain("ok\\u009b2K\\u202etxt.exe\\u007f");
  const parsed = JSON.parse(shown.stdout) as { events: { type: string; text?: string }[] };
  expect(parsed.events.find((e) => e.type === "text")?.text).toBe(text);
});

test("offrun ls spells out a control character in a record's field, and refuses a branch git would not name", async () => {
  await fs.writeFile(
    path.join(repo, ".offrun", "agents", "tasky.json"),
    JSON.stringify(agentRecord(repo, "tasky", { account: "make it ok\r\x1b[2Kmain" })),
  );
  // A branch is copied to the clipboard and passed to git: one with a control character is no record of Offrun's.
  await fs.writeFile(
    path.join(repo, ".offrun", "agents", "branchy.json"),
    JSON.stringify(agentRecord(repo, "branchy", { branch: "offrun/ok\r\x1b[2Kmain" })),
  );
  const listed = await runOffrun(["ls"], { env: box.env, cwd: repo });
  expect(listed).toSucceed();
  expect(listed.stdout).toContain("make it ok\\r\\x1b[2Kmain");
  expect(`${listed.stdout}${listed.stderr}`).toMatch(/branchy\.json[\s\S]*branch: is not a branch Offrun would name/);
  expect(obeyed(listed.stdout + listed.stderr)).toEqual([]);
  await fs.rm(path.join(repo, ".offrun", "agents", "branchy.json"));
});

test("offrun watch spells out the control characters of a tool call appended to a chat", async () => {
  const watcher = startOffrun(["watch", "--project", repo], { env: box.env, timeoutMs: 60_000 });
  try {
    await eventually(
      async () => (watcher.output.stderr.includes("Watching") ? true : undefined),
      20_000,
      "watch ready",
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    await fs.appendFile(
      path.join(repo, ".offrun", "chats", "cmd.jsonl"),
      line({ type: "tool_call", id: "t2", name: "Bash", input: { command: HIDDEN } }) + "\n",
    );
    const out = await eventually(
      async () => (watcher.output.stdout.includes("ls") ? watcher.output.stdout : undefined),
      20_000,
      "the tool call",
    );
    expect(out).toContain(`cmd: ⚙ Bash ${SPELLED}`);
    expect(obeyed(out)).toEqual([]);
  } finally {
    await watcher.stop();
  }
});

/** A real companion of its own OFFRUN_HOME (`folder`) with `bin` first on its PATH, ready once its chat watcher runs. */
async function startCompanion(folder: string, bin: string) {
  const home = path.join(box.dir, folder);
  await fs.mkdir(home, { recursive: true });
  await fs.copyFile(path.join(box.offrunHome, "projects.json"), path.join(home, "projects.json"));
  // Every notification must reach notify-send: a finished turn just after an approval is rate-limited by default.
  await fs.writeFile(path.join(home, "config.json"), JSON.stringify({ notifications: { minIntervalSeconds: 0 } }));
  const env = { ...box.env, OFFRUN_HOME: home, PATH: `${bin}${path.delimiter}${box.env.PATH ?? ""}` };
  const companion = execa(process.execPath, [OFFRUN_BIN, "companion", "run"], {
    env,
    extendEnv: false,
    stdin: "ignore",
    reject: false,
    timeout: 60_000,
  });
  const log = path.join(home, "companion.log");
  const readLog = () => fs.readFile(log, "utf8").catch(() => "");
  await eventually(async () => ((await readLog()).includes("listening") ? true : undefined));
  await new Promise((resolve) => setTimeout(resolve, 1000)); // the chat watcher starts after recovery
  return {
    readLog,
    stop: async () => {
      companion.kill("SIGTERM");
      await companion;
    },
  };
}

/** Appends `events` to the chat of a new agent `name`, as its running CLI would. */
async function appendToNewAgent(name: string, events: Record<string, unknown>[]): Promise<void> {
  await fs.writeFile(path.join(repo, ".offrun", "agents", `${name}.json`), JSON.stringify(agentRecord(repo, name)));
  await fs.appendFile(path.join(repo, ".offrun", "chats", `${name}.jsonl`), events.map(line).join("\n") + "\n");
}

test("a notification spells out the control characters of an approval's command and of a finished turn's text", async () => {
  const notifySend = await recordingNotifySend(path.join(box.dir, "notify"));
  const companion = await startCompanion("notify-home", notifySend.bin);
  try {
    await appendToNewAgent("ask", [
      { type: "approval_request", id: "1.1", tool: "Bash\x1b[8m", input: { command: HIDDEN } },
      { type: "text", text: "Nothing to see.\r\x1b[2KDone" },
      { type: "turn_end", outcome: "completed" },
    ]);
    const calls = await eventually(
      async () => {
        const recorded = await notifySend.calls();
        return recorded.length >= 2 ? recorded : undefined;
      },
      15_000,
      "two notifications",
    ).catch(async (error: unknown) => {
      throw new Error(`${String(error)}\n${JSON.stringify(await notifySend.calls())}\n${await companion.readLog()}`);
    });
    // Matched by title: the two may reach notify-send in either order.
    const approval = calls.find((call) => call[0]?.includes("needs approval"))?.slice(0, 2);
    const finished = calls.find((call) => call[0]?.endsWith("finished"));
    // A body is one line: the CR went with the other whitespace (classify's cut), the ESC is spelled out.
    // The title names the agent first: with several agents on one project, whose turn it was.
    expect(approval).toEqual(["ask (claude) · shop: needs approval (Bash\\x1b[8m)", "rm -rf ~ \\x1b[2Kls"]);
    expect(finished?.[0]).toBe("ask (claude) · shop: finished");
    expect(finished?.[1]).toBe("Nothing to see. \\x1b[2KDone");
    expect(obeyed(calls.flat().join("\n"))).toEqual([]);
  } finally {
    await companion.stop();
  }
});

test("the companion's log spells out the control characters of what it quotes", async () => {
  // A notify-send that fails: the companion logs the notification's title, which names the agent's tool.
  const bin = path.join(box.dir, "failing-notify", "bin");
  await fs.mkdir(bin, { recursive: true });
  await fs.writeFile(path.join(bin, "notify-send"), "#!/bin/sh\necho 'no notification daemon' >&2\nexit 1\n", {
    mode: 0o755,
  });
  const companion = await startCompanion("log-home", bin);
  try {
    await appendToNewAgent("logged", [
      { type: "approval_request", id: "1.1", tool: "Bash\r\x1b[2K", input: { command: "ls" } },
    ]);
    const log = await eventually(
      async () => {
        const text = await companion.readLog();
        return text.includes("could not be shown") ? text : undefined;
      },
      15_000,
      "the failed notification in the log",
    );
    expect(log).toContain("needs approval (Bash\\r\\x1b[2K)");
    expect(obeyed(log)).toEqual([]);
  } finally {
    await companion.stop();
  }
});
