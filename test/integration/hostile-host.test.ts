import fs from "node:fs/promises";
import path from "node:path";
import { projectTag } from "../../src/core/companion/mirror.js";
import { PROJECT, writeHostileSsh } from "../helpers/hostile-host.js";
import { eventually, makeRepo, makeSandbox, runOffrun, type Sandbox } from "../helpers/offrun.js";

// A host's replies are input: its sizes, offsets, volume and shape too. A scripted hostile
// `offrun companion stdio` (helpers/hostile-host.ts) stands behind a fake `ssh` first on PATH and
// speaks the real protocol, one misbehaviour per host. Against the code before, each of these
// failed: the copy grew past 75 MB, set-aside copies piled up, `offrun show` waited for ever, the
// log took every junk line, and the companion's memory grew by hundreds of MB.

let box: Sandbox;
let repo: string;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  box = await makeSandbox("offrun-hostile-");
  repo = await makeRepo(path.join(box.dir, "repo"), box.env);
  const bin = await writeHostileSsh(box.dir);
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

test("logs that together pass a host's folder budget: the rest is refused, named in `offrun hosts`, and let in by its advice", async () => {
  // Broke: a host's folder had no budget (its copies grew with every agent it ran), and what was
  // over a budget was said only in companion.log.
  const host = "evil-budget";
  const whole = 13357 * 157; // each of its two agents' logs (helpers/hostile-host.ts)
  const copyOf = (agent: string) =>
    path.join(box.offrunHome, "hosts", host, "chats", `${projectTag(PROJECT)}-${agent}.jsonl`);
  const sizeOf = async (agent: string) => (await fs.stat(copyOf(agent)).catch(() => undefined))?.size ?? 0;
  expect(await offrun("hosts", "add", host, host, "--folder-mb", "3")).toSucceed();
  expect(await offrun("companion", "start")).toSucceed();
  const told = await eventually(
    async () => {
      const hosts = await offrun("hosts");
      return hosts.stdout.includes("a2 (/srv/app) is not copied here") ? hosts.stdout : undefined;
    },
    30_000,
    "`offrun hosts` to name the refused agent",
  );
  expect(told).toContain(
    `⚠ ${host}: a2 (/srv/app) is not copied here past 0.0 MB of its 2.0 MB log: ${host}'s copies hold 2.0 MB of the 3.0 MB they may`,
  );
  expect(told).toMatch(/evil-budget +evil-budget +connected .* 2\.0 MB of 3\.0 MB/);
  expect(await sizeOf("a1")).toBe(whole);
  expect(await sizeOf("a2")).toBe(0);
  expect(await hostBytes(host)).toBeLessThanOrEqual(3 * 1024 * 1024);

  // The advice, followed as printed.
  const advice = /raise evil-budget's budget: (offrun hosts budget .*)$/m.exec(told)?.[1];
  expect(advice).toBe(`offrun hosts budget ${host} --folder-mb 6`);
  expect(await offrun(...advice!.split(" ").slice(1))).toSucceed();
  await eventually(async () => ((await sizeOf("a2")) === whole ? true : undefined), 30_000, "a2 to be copied");
  // Nothing copied before is lost, and nothing is named any more.
  expect(await sizeOf("a1")).toBe(whole);
  const after = await eventually(
    async () => {
      const hosts = await offrun("hosts");
      return hosts.stdout.includes("4.0 MB of 6.0 MB") ? hosts.stdout : undefined;
    },
    30_000,
    "`offrun hosts` to show the copies within the new budget",
  );
  expect(after).not.toContain("not copied here");
  await remove(host);
}, 120_000);
