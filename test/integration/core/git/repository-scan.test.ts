import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { foundRepositories, repositoryCacheFile, scanRepositories } from "../../../../src/core/git/repository-scan.js";
import { git, makeRepo, makeSandbox, useSandboxInProcess, type Sandbox } from "../../../helpers/offrun.js";

// Start Agent offers the git repositories in the usual code folders of a fresh HOME
// (core/git/repository-scan.ts): real `git init` repositories in a real temp HOME.

let box: Sandbox;
beforeEach(async () => {
  box = await makeSandbox("offrun-scan-");
  useSandboxInProcess(box);
});
afterEach(async () => {
  await fs.chmod(path.join(box.home, "code", "locked"), 0o755).catch(() => undefined);
  // The sandbox's cleanup lists its folder recursively, which follows links: the loops go first.
  for (const link of ["loop", "self"]) await fs.rm(path.join(box.home, "code", link), { force: true });
  await box.cleanup();
});

const repo = async (relative: string) => fs.realpath(await makeRepo(path.join(box.home, relative), box.env));
const roots = (found: { root: string }[]) => found.map((r) => r.root).sort();

test("repositories one and two levels down in the code folders are found, deeper ones and plain folders not", async () => {
  const expected = await Promise.all([
    repo("Developer/app"),
    repo("code/org/service"),
    repo("src/tool"),
    repo("projects/site"),
    repo("work/client/api"),
  ]);
  await repo("projects/a/b/deep");
  await repo("Documents/notes");
  await fs.mkdir(path.join(box.home, "code", "plain", "folder"), { recursive: true });
  // A repository's own folders are not searched: a vendored checkout inside is part of it.
  await repo("Developer/app/vendor/lib");
  const started = Date.now();
  const found = await scanRepositories({ home: box.home });
  expect(Date.now() - started).toBeLessThan(1_000);
  expect(roots(found)).toEqual([...expected].sort());
  expect(found.find((r) => r.root.endsWith("service"))!.name).toBe("service");
});

test("a linked worktree (a .git file) is found, and the most recently changed repository comes first", async () => {
  const old = await repo("code/old");
  const recent = await repo("code/recent");
  await git(old, box.env, ["worktree", "add", "-q", "-b", "side", path.join(box.home, "code", "side")]);
  const past = new Date(Date.now() - 3_600_000);
  await fs.utimes(path.join(old, ".git", "index"), past, past);
  await fs.utimes(path.join(old, ".git"), past, past);
  await fs.utimes(path.join(box.home, "code", "side", ".git"), past, past);
  const found = await scanRepositories({ home: box.home });
  expect(found[0]!.root).toBe(recent);
  expect(roots(found)).toEqual([old, recent, await fs.realpath(path.join(box.home, "code", "side"))].sort());
});

test("a folder symlink loop, a link to a repository found another way and an unreadable folder neither hang nor repeat", async () => {
  const app = await repo("code/app");
  await fs.symlink(path.join(box.home, "code"), path.join(box.home, "code", "loop"));
  await fs.symlink(".", path.join(box.home, "code", "self"));
  await fs.symlink(app, path.join(box.home, "projects"));
  await fs.symlink(path.join(box.home, "nowhere"), path.join(box.home, "code", "dangling"));
  const locked = await repo("code/locked/inside");
  await fs.chmod(path.join(box.home, "code", "locked"), 0o000);
  const found = await scanRepositories({ home: box.home });
  // root reads any folder, so there the locked repository is found; anyone else cannot list it.
  const readable = process.getuid?.() === 0;
  expect(roots(found)).toEqual(readable ? [app, locked].sort() : [app]);
});

test("hostile folder names are found as they are", async () => {
  const names = ["-rf", "$(touch pwned)", "quote'\"`", "new\nline", "üñí ☃", " spaced "];
  const expected = await Promise.all(names.map((name) => repo(path.join("code", name))));
  const found = await scanRepositories({ home: box.home });
  expect(roots(found)).toEqual([...expected].sort());
  expect(found.map((r) => r.name).sort()).toEqual([...names].sort());
  await expect(fs.stat(path.join(box.home, "code", "pwned"))).rejects.toThrow();
});

test("the scan is cached under OFFRUN_HOME, answered from while fresh, and rescanned behind a stale answer", async () => {
  let clock = Date.now();
  const now = () => clock;
  const first = await repo("code/first");
  const scanned = await foundRepositories({ now });
  expect(roots(scanned.repositories)).toEqual([first]);
  expect(repositoryCacheFile().startsWith(box.offrunHome)).toBe(true);
  expect(JSON.parse(await fs.readFile(repositoryCacheFile(), "utf8")).repositories).toHaveLength(1);

  // Fresh: the cache answers, so a repository made since is not there yet.
  const second = await repo("code/second");
  expect(roots((await foundRepositories({ now })).repositories)).toEqual([first]);

  // Stale: the cached answer comes at once (without one gone since), and the rescan lands behind it.
  clock += 3_600_000;
  await fs.rm(first, { recursive: true });
  const stale = await foundRepositories({ now });
  expect(roots(stale.repositories)).toEqual([]);
  await stale.refreshed;
  expect(roots((await foundRepositories({ now })).repositories)).toEqual([second]);
});

test("an unreadable cache is rebuilt by a scan", async () => {
  const app = await repo("code/app");
  await fs.mkdir(path.dirname(repositoryCacheFile()), { recursive: true });
  await fs.writeFile(repositoryCacheFile(), "{ not json");
  // On a busy machine the first half-second may find nothing; the scan behind it finishes.
  await (
    await foundRepositories()
  ).refreshed;
  expect(roots((await foundRepositories()).repositories)).toEqual([app]);
});

test("a scan cut short by its budget answers with what it found and is finished behind it", async () => {
  const app = await repo("code/app");
  // Time runs fast (a second per look at the clock) until the first answer is written: a loaded machine.
  let clock = Date.now();
  const now = () => (existsSync(repositoryCacheFile()) ? clock : (clock += 1000));
  const first = await foundRepositories({ now });
  expect(first.repositories).toEqual([]);
  expect(JSON.parse(await fs.readFile(repositoryCacheFile(), "utf8")).complete).toBe(false);
  await first.refreshed;
  expect(roots((await foundRepositories({ now })).repositories)).toEqual([app]);
  expect(JSON.parse(await fs.readFile(repositoryCacheFile(), "utf8")).complete).toBe(true);
});

test("a fresh cache from a scan that was cut short is scanned again, not trusted for ten minutes", async () => {
  const app = await repo("code/app");
  await fs.mkdir(path.dirname(repositoryCacheFile()), { recursive: true });
  await fs.writeFile(
    repositoryCacheFile(),
    JSON.stringify({ version: 1, scannedAt: Date.now(), complete: false, repositories: [] }),
  );
  const answer = await foundRepositories();
  expect(answer.repositories).toEqual([]);
  await answer.refreshed;
  expect(roots((await foundRepositories()).repositories)).toEqual([app]);
});
