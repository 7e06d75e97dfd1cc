import fs from "node:fs/promises";
import path from "node:path";
import { commandWord } from "../../../src/cli/boot.js";
import { makeRepo, makeSandbox, runOffrun, type Sandbox } from "../../helpers/offrun.js";

// bin/offrun.js starts the one-file bundle through V8's code cache (src/cli/boot.ts): one cache per
// command word in the user's private OFFRUN_HOME/cache/compile, written by the first run of that
// command and read by every later one. A cache that is corrupt or of another build never changes
// what a command does: it costs one ordinary start and is written again.

let box: Sandbox;
let repo: string;
const cacheDir = () => path.join(box.offrunHome, "cache", "compile");
const caches = async () => (await fs.readdir(cacheDir()).catch(() => [])).sort();
const ls = () => runOffrun(["ls"], { env: box.env, cwd: repo });

beforeAll(async () => {
  box = await makeSandbox("offrun-compile-cache-");
  repo = await makeRepo(path.join(box.dir, "repo"), box.env);
});
afterAll(async () => {
  await box.cleanup();
});

test("the first run of a command writes its cache, privately, and later runs read it unchanged", async () => {
  const first = await ls();
  expect(first).toSucceed();
  const written = await caches();
  expect(written).toHaveLength(1);
  expect(written[0]).toMatch(
    new RegExp(`^${process.version.replace(/\./g, "\\.")}_${process.arch}_\\d+_\\d+-ls\\.v8$`),
  );
  const file = path.join(cacheDir(), written[0]!);
  expect((await fs.stat(cacheDir())).mode & 0o777).toBe(0o700);
  const stat = await fs.stat(file);
  expect(stat.mode & 0o777).toBe(0o600);
  expect(stat.size).toBeGreaterThan(10_000);

  const again = await ls();
  expect(again).toSucceed();
  expect(again.stdout).toBe(first.stdout);
  // Accepted by V8, so not written again.
  expect((await fs.stat(file)).mtimeMs).toBe(stat.mtimeMs);

  expect(await runOffrun(["--version"], { env: box.env })).toSucceed();
  expect((await caches()).map((f) => f.split("-").at(-1))).toEqual(["ls.v8", "other.v8"]);
});

test("a corrupt cache is turned down by V8 and written again; the command works all the same", async () => {
  const [name] = (await caches()).filter((f) => f.endsWith("-ls.v8"));
  const file = path.join(cacheDir(), name!);
  const garbage = Buffer.alloc(4096, 0x5a);
  await fs.writeFile(file, garbage);
  const run = await ls();
  expect(run).toSucceed();
  expect(run.stdout).toContain("No agents");
  const rewritten = await fs.readFile(file);
  expect(rewritten.equals(garbage)).toBe(false);
  expect(rewritten.length).toBeGreaterThan(10_000);
});

test("the caches of another build go when this build writes one", async () => {
  const stale = path.join(cacheDir(), "v0.0.1_x64_1_1-ls.v8");
  await fs.writeFile(stale, "old");
  await fs.rm(
    path.join(
      cacheDir(),
      (await caches()).find((f) => f.endsWith("-other.v8"))!,
    ),
  );
  expect(await runOffrun(["--version"], { env: box.env })).toSucceed();
  expect(await caches()).not.toContain("v0.0.1_x64_1_1-ls.v8");
  expect((await caches()).map((f) => f.split("-").at(-1))).toEqual(["ls.v8", "other.v8"]);
});

test("an OFFRUN_HOME that cannot be written to costs the cache, not the command", async () => {
  const blocked = path.join(box.dir, "blocked");
  await fs.writeFile(blocked, "a file where the home would be");
  const run = await runOffrun(["--version"], { env: { ...box.env, OFFRUN_HOME: blocked } });
  expect(run).toSucceed();
});

test("the command word is the first argument that looks like one", () => {
  expect(commandWord(["node", "offrun", "ls"])).toBe("ls");
  expect(commandWord(["node", "offrun", "--json", "--project", "/srv/app", "show", "fix-upload"])).toBe("show");
  expect(commandWord(["node", "offrun", "--help"])).toBe("other");
  expect(commandWord(["node", "offrun", "../../etc"])).toBe("other");
});

// Regression: on Node 20 a script made from cached data lost its dynamic-import callback, so from
// the second start on the sandbox runtime (the one module loaded with import()) failed to load and
// every `start --sandbox` was refused. Each test's OFFRUN_HOME was new, so no test saw a cached start.
test("the sandbox runtime loads on the first, second and third start alike, cache or no cache", async () => {
  const sandboxLines = async () => {
    const run = await runOffrun(["harnesses"], { env: box.env });
    expect(run).toSucceed();
    return run.stdout.split("\n").filter((line) => line.trim().startsWith("sandbox:"));
  };
  const first = await sandboxLines();
  expect(first.length).toBeGreaterThan(0);
  expect((await caches()).some((f) => f.endsWith("-harnesses.v8"))).toBe(true);
  for (const later of [await sandboxLines(), await sandboxLines()]) {
    expect(later.join("\n")).not.toContain("did not load");
    expect(later).toEqual(first);
  }
  expect(first.join("\n")).not.toContain("did not load");
});
