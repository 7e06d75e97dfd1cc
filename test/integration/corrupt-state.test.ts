import fs from "node:fs/promises";
import path from "node:path";
import { eventually, makeRepo, makeSandbox, runOffrun, type Sandbox } from "../helpers/offrun.js";
import { fixture, writeStubCli } from "../helpers/stub-cli.js";

// Offrun's own state files corrupt: the companion starts anyway, says which file and what was
// done, and every project goes on working.

let box: Sandbox;
beforeAll(async () => {
  box = await makeSandbox("offrun-corrupt-");
});
afterAll(async () => {
  await box.cleanup();
});

test("a corrupt projects.json does not stop the companion: it is kept aside, rebuilt, named in companion.log and by offrun", async () => {
  // Broke: the companion logged "listening", then exited, with the reason on stderr only.
  const bin = await writeStubCli(path.join(box.dir, "stub", "claude"), {
    replay: fixture("claude", "2.1.332", "text-reply"),
  });
  const env = { ...box.env, OFFRUN_CLAUDE_BIN: bin };
  const repos = await Promise.all(["one", "two"].map((name) => makeRepo(path.join(box.dir, name), box.env)));
  for (const [i, repo] of repos.entries()) {
    expect(await runOffrun(["start", "--wait", "--name", `agent-${i}`, "hello"], { env, cwd: repo })).toSucceed();
  }
  expect(await runOffrun(["companion", "stop"], { env })).toSucceed();
  const file = path.join(box.offrunHome, "projects.json");
  const whole = await fs.readFile(file, "utf8");
  // Cut short as a crash of an older writer would leave it: both roots still named, not JSON.
  const cut = whole.slice(0, whole.lastIndexOf('"lastUsedAt"'));
  await fs.writeFile(file, cut);
  const aMinuteAgo = new Date(Date.now() - 60_000);
  await fs.utimes(file, aMinuteAgo, aMinuteAgo);

  const dashboard = await runOffrun(["--json"], { env, cwd: box.dir });
  expect(dashboard.exitCode).toBe(0);
  expect(dashboard.stderr).toContain(`offrun: warning: ${file} is not valid JSON`);
  expect(dashboard.stderr).toMatch(/kept it as \S+projects\.json\.corrupt-\S+ and rebuilt it with the 2 project\(s\)/);
  const shown = JSON.parse(dashboard.stdout) as { projects: { root: string }[] };
  expect(shown.projects.map((p) => p.root).sort()).toEqual([...repos].sort());
  const aside = (await fs.readdir(box.offrunHome)).filter((name) => name.startsWith("projects.json.corrupt-"));
  expect(aside).toHaveLength(1);
  expect(await fs.readFile(path.join(box.offrunHome, aside[0]!), "utf8")).toBe(cut);

  // Corrupt again, then the companion starts: it runs, and its log names the file.
  await fs.writeFile(file, cut);
  await fs.utimes(file, aMinuteAgo, aMinuteAgo);
  expect(await runOffrun(["companion", "start"], { env })).toSucceed();
  const log = path.join(box.offrunHome, "companion.log");
  await eventually(
    async () => ((await fs.readFile(log, "utf8")).includes(`state: ${file} is not valid JSON`) ? true : undefined),
    20_000,
    "companion.log to name projects.json",
  );
  expect((await runOffrun(["companion", "status"], { env })).stdout).toMatch(/running/);
  for (const [i, repo] of repos.entries()) {
    expect(await runOffrun(["send", "--wait", `agent-${i}`, "again"], { env, cwd: repo })).toSucceed();
  }
}, 90_000);

test("a projects.json caught half-written is read from its text and left to its writer", async () => {
  // Broke: the companion watches the file, read it between an editor's truncate and its write,
  // took it for corrupt and replaced it with the projects it could still see (none): the write
  // that finished a moment later went to the replaced file, and every project was forgotten.
  const oh = path.join(box.dir, "oh-half");
  const env = { ...box.env, OFFRUN_HOME: oh };
  const roots = await Promise.all(["half-a", "half-b"].map((name) => makeRepo(path.join(box.dir, name), box.env)));
  await fs.mkdir(oh, { recursive: true });
  const file = path.join(oh, "projects.json");
  const whole = JSON.stringify({
    version: 1,
    projects: roots.map((root) => ({ root, lastUsedAt: "2026-12-01T00:00:00.000Z" })),
  });
  const half = whole.slice(0, whole.indexOf(roots[1]!) + roots[1]!.length + 1);
  const writer = await fs.open(file, "w");
  try {
    await writer.write(half);
    const during = await runOffrun(["--json"], { env, cwd: box.dir });
    expect(during.exitCode).toBe(0);
    expect(during.stderr).toContain(`${file} is not valid JSON`);
    expect(during.stderr).toContain("may still be being written");
    expect((JSON.parse(during.stdout) as { projects: { root: string }[] }).projects.map((p) => p.root).sort()).toEqual(
      [...roots].sort(),
    );
    await writer.write(whole.slice(half.length));
  } finally {
    await writer.close();
  }
  expect(await fs.readFile(file, "utf8")).toBe(whole);
  expect((await fs.readdir(oh)).filter((name) => name.startsWith("projects.json.corrupt-"))).toEqual([]);
  const after = await runOffrun(["--json"], { env, cwd: box.dir });
  expect(after.stderr).not.toContain(file);
}, 60_000);

test("a corrupt agent record, quota cache and harnesses.json are named, and the other agents go on", async () => {
  // Broke: the record was skipped in silence, and the damaged quota cache was replaced unsaid.
  const oh = path.join(box.dir, "oh-more");
  const bin = await writeStubCli(path.join(box.dir, "stub-more", "claude"), {
    replay: fixture("claude", "2.1.332", "text-reply"),
  });
  const env = { ...box.env, OFFRUN_HOME: oh, OFFRUN_CLAUDE_BIN: bin };
  const repo = await makeRepo(path.join(box.dir, "more"), box.env);
  const offrun = (...args: string[]) => runOffrun(args, { env, cwd: repo });
  for (const name of ["kept", "broken"]) expect(await offrun("start", "--wait", "--name", name, "hello")).toSucceed();
  expect(await offrun("companion", "stop")).toSucceed();
  const record = path.join(repo, ".offrun", "agents", "broken.json");
  await fs.writeFile(record, '{"version": 1, "name": "bro');
  const quota = path.join(oh, "cache", "quota.json");
  await fs.mkdir(path.dirname(quota), { recursive: true });
  await fs.writeFile(quota, "[1, 2");
  await fs.writeFile(path.join(oh, "harnesses.json"), '{"harnesses": [{"id": 3}]}');

  const ls = await offrun("ls", "--json");
  expect(ls.exitCode).toBe(0);
  expect((JSON.parse(ls.stdout) as { agents: { name: string }[] }).agents.map((a) => a.name)).toEqual(["kept"]);
  expect(ls.stderr).toContain(`offrun: warning: ${record} is not valid JSON`);
  expect(ls.stderr).toContain("The agent 'broken' is left out until then.");

  expect(await offrun("send", "--wait", "kept", "again")).toSucceed();
  const log = await fs.readFile(path.join(oh, "companion.log"), "utf8");
  expect(log).toContain(`state: ${record} is not valid JSON`);
  expect(log).toContain(`state: ${quota} is not valid JSON`);
  // The built-in CLIs go on (the turn above); the listing of every CLI names the bad file and the fix.
  const harnesses = await offrun("harnesses");
  expect(harnesses.stderr).toContain(`${path.join(oh, "harnesses.json")} is not valid`);
  expect(harnesses.stderr).toContain("or move it aside");
}, 90_000);
