import fs from "node:fs/promises";
import path from "node:path";
import { PROTOCOL_VERSION } from "../../src/core/protocol/protocol-views.js";
import { eventually, makeRepo, makeSandbox, runOffrun, type Sandbox } from "../helpers/offrun.js";
import { agentRecord } from "../helpers/records.js";

// A host's replies are input: its sizes, offsets, volume and shape too. A scripted hostile
// `offrun companion stdio` stands behind a fake `ssh` first on PATH and speaks the real protocol (a
// JSON-RPC message a line), one misbehaviour per host. Against the code before, each of these
// failed: the copy grew past 75 MB, set-aside copies piled up, `offrun show` waited for ever, the
// log took every junk line, and the companion's memory grew by hundreds of MB.

const PROJECT = "/srv/app";

/** The hostile host: answers hello and ping, then misbehaves as HOSTILE_MODE says. */
function hostileScript(record: unknown): string {
  return `const mode = process.env.HOSTILE_MODE;
const record = ${JSON.stringify(record)};
const line = '{"type":"assistant_text","at":"2026-12-07T10:00:00.000Z","turn":1,"text":"' + "y".repeat(80) + '"}';
let pending = "";
let round = 0;
const send = (message) => process.stdout.write(JSON.stringify(message) + "\\n");
const reply = (id, result) => send({ jsonrpc: "2.0", id, result });
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  pending += chunk;
  let end;
  while ((end = pending.indexOf("\\n")) >= 0) {
    const message = JSON.parse(pending.slice(0, end));
    pending = pending.slice(end + 1);
    if (message.method === undefined) continue;
    handle(message);
  }
});
function handle({ id, method, params }) {
  if (method === "hello") {
    reply(id, { protocol: ${PROTOCOL_VERSION}, version: "6.6.6", hostname: "evil" });
    if (mode === "junk") setImmediate(function flood() { if (process.stdout.write("x\\n".repeat(1000))) setImmediate(flood); else process.stdout.once("drain", flood); });
    if (mode === "requests") {
      process.stdin.pause();
      let n = 0;
      const flood = () => { while (process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: ++n, method: "agents.list", params: {} }) + "\\n")); process.stdout.once("drain", flood); };
      setImmediate(flood);
    }
    return;
  }
  if (method === "ping") return reply(id, { pid: 1, version: "6.6.6", startedAt: "2026-12-07T00:00:00.000Z", running: 0 });
  if (method === "changes.wait") return setTimeout(() => reply(id, { token: "t" + ++round }), 200);
  if (method === "agents.list") {
    const chatBytes = mode === "replaced" ? (round % 2 ? 2 * 1024 * 1024 : 0) : 4096;
    const listed = mode === "control" ? { ...record, worktree: record.worktree + "\\necho pwned" } : record;
    return reply(id, { hostname: "evil", projects: [{ root: "${PROJECT}", agents: [{ record: listed, chatBytes }], unreadable: [] }] });
  }
  if (method === "chat.read") {
    if (mode === "offsets") return reply(id, { lines: Array(10000).fill(line), next: params.offset + 1, size: 4096 });
    // Honest lines, as many as fill the size it said.
    const lines = Array(Math.ceil((2 * 1024 * 1024 - params.offset) / (line.length + 1))).fill(line);
    return reply(id, { lines, next: params.offset + lines.length * (line.length + 1), size: 2 * 1024 * 1024 });
  }
  if (method === "agent.show" && mode === "control") {
    return reply(id, { agent: { ...record, worktree: record.worktree + "\\necho pwned" }, pending: [], events: [], corruptLines: 0 });
  }
  if (method === "agent.show" && mode === "deep") {
    return process.stdout.write('{"jsonrpc":"2.0","id":' + id + ',"result":{"agent":' + "[".repeat(100000) + "]".repeat(100000) + "}}\\n");
  }
  send({ jsonrpc: "2.0", id, error: { code: -32601, message: "Unhandled method " + method } });
}
`;
}

let box: Sandbox;
let repo: string;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  box = await makeSandbox("offrun-hostile-");
  repo = await makeRepo(path.join(box.dir, "repo"), box.env);
  const bin = path.join(box.dir, "bin");
  await fs.mkdir(bin);
  const script = path.join(box.dir, "hostile.cjs");
  await fs.writeFile(script, hostileScript(agentRecord(PROJECT, "a1", { status: "working" })));
  // The fake ssh: whatever it is asked, the hostile companion answers, in the mode its host's name says.
  await fs.writeFile(
    path.join(bin, "ssh"),
    `#!/bin/sh\nfor arg; do case "$arg" in evil-*) mode=\${arg#evil-};; esac; done\nHOSTILE_MODE=$mode exec '${process.execPath}' '${script}'\n`,
    { mode: 0o755 },
  );
  env = { ...box.env, PATH: `${bin}${path.delimiter}${box.env.PATH}` };
});
afterAll(async () => {
  await runOffrun(["companion", "stop"], { env, cwd: repo });
  await box.cleanup();
});

const offrun = (...args: string[]) => runOffrun(args, { env, cwd: repo });
const companionLog = () => fs.readFile(path.join(box.offrunHome, "companion.log"), "utf8").catch(() => "");

/** Bytes under a host's folder of ~/.offrun/hosts. */
async function hostBytes(host: string): Promise<number> {
  const dir = path.join(box.offrunHome, "hosts", host);
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  let total = 0;
  for (const entry of entries.filter((e) => e.isFile())) {
    total += (await fs.stat(path.join(entry.parentPath, entry.name))).size;
  }
  return total;
}

async function follow(mode: string): Promise<string> {
  const host = `evil-${mode}`;
  expect(await offrun("hosts", "add", host, host)).toSucceed();
  expect(await offrun("companion", "start")).toSucceed();
  await eventually(
    async () => ((await companionLog()).includes(`host ${host}: connected`) ? true : undefined),
    30_000,
    `${host} to connect`,
  );
  return host;
}

async function remove(host: string): Promise<void> {
  expect(await offrun("hosts", "rm", host)).toSucceed();
}

test("lying offsets fill nothing: the copy stays within the size the host stated, and the round says why", async () => {
  const host = await follow("offsets");
  await new Promise((resolve) => setTimeout(resolve, 5_000));
  expect(await hostBytes(host)).toBeLessThanOrEqual(64 * 1024);
  expect(await companionLog()).toMatch(/chat\.read from offset \d+ answered \d+ bytes and next \d+/);
  await remove(host);
}, 60_000);

test("a log the host says was replaced at every round leaves one set-aside copy, not one per round", async () => {
  const host = await follow("replaced");
  await new Promise((resolve) => setTimeout(resolve, 6_000));
  const chats = await fs.readdir(path.join(box.offrunHome, "hosts", host, "chats")).catch(() => []);
  expect(chats.filter((name) => name.includes(".replaced-")).length).toBeLessThanOrEqual(1);
  expect(await hostBytes(host)).toBeLessThanOrEqual(5 * 1024 * 1024);
  await remove(host);
}, 60_000);

test("a reply too deep to pass on is an error the face gets, not a wait for ever", async () => {
  const host = await follow("deep");
  const started = Date.now();
  const shown = await offrun("show", `${host}:a1`);
  expect(shown.exitCode).not.toBe(0);
  expect(Date.now() - started).toBeLessThan(60_000);
  // Checked against the protocol before it is passed on (host-handlers.ts), it is refused at once.
  expect(shown.stderr).toMatch(/could not be sent|Maximum call stack|does not pass on: agent /);
  await remove(host);
}, 90_000);

test("junk lines are counted, the first few logged, and the link closed: the log stays small and ls answers", async () => {
  const host = await follow("junk");
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  const listed = await offrun("ls");
  expect(listed).toSucceed();
  const log = await companionLog();
  expect(log).toMatch(/lines that are not Offrun's protocol; closing the connection/);
  expect(Buffer.byteLength(log)).toBeLessThan(2 * 1024 * 1024);
  await remove(host);
}, 60_000);

test("a host that floods requests and reads nothing is cut off; the companion's memory stays bounded", async () => {
  const host = await follow("requests");
  const pid = Number((await fs.readFile(path.join(box.offrunHome, "run", "companion.pid"), "utf8")).trim());
  let peak = 0;
  for (let i = 0; i < 30; i++) {
    const status = await fs.readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
    peak = Math.max(peak, Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0));
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  expect(peak).toBeLessThan(400 * 1024); // KB
  expect(await companionLog()).toMatch(/requests .*a host asks nothing; closing the connection|read none of the last/);
  await remove(host);
}, 60_000);

test("a host's record whose path holds a control character is refused and named, never shown or copied", async () => {
  // Broke: the worktree came through as sent, so a face's "Copy Worktree Path" put a line that
  // runs when pasted into a terminal.
  const host = await follow("control");
  const shown = await offrun("show", `${host}:a1`);
  expect(shown.exitCode).not.toBe(0);
  expect(shown.stdout).not.toContain("echo pwned");
  // `show` asks for the host's listing first: that answer is the one refused.
  expect(shown.stderr).toMatch(
    new RegExp(
      `${host} answered agents?\\.(list|show) with what Offrun does not pass on: \\S*worktree holds a control character`,
    ),
  );
  expect(shown.stderr).toContain(`offrun hosts doctor ${host}`);
  const listed = await offrun("ls", "--json");
  expect(listed.stdout).not.toContain("echo pwned");
  await eventually(
    async () => ((await companionLog()).includes("holds a control character") ? true : undefined),
    20_000,
    "the companion's log to name the refused record",
  );
  await remove(host);
}, 60_000);
