import fs from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { commandWord } from "../../../src/cli/boot.js";
import { makeRepo, makeSandbox, PROJECT_ROOT, runOffrun, type Sandbox } from "../../helpers/offrun.js";
import { agentRecord } from "../../helpers/records.js";

// bin/offrun.js starts a one-file bundle through V8's code cache (src/cli/boot.ts): the quick one
// for the everyday commands, the whole one for the others; one cache per bundle and command word in
// the user's private OFFRUN_HOME/cache/compile, written by the first run of that command and read
// by every later one. A cache that is corrupt or of another build never changes
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
    new RegExp(`^${process.version.replace(/\./g, "\\.")}_${process.arch}_\\d+_\\d+_\\d+-quick-ls\\.v8$`),
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

// The build writes Node's CommonJS wrapper into each bundle (scripts/build-cli.mjs), so the boot
// compiles the text as read instead of joining a megabyte to the wrapper at every start.
test("a bundle that was not built for this boot is refused with what to do", async () => {
  const copy = path.join(box.dir, "old-build");
  await fs.mkdir(copy, { recursive: true });
  for (const file of ["boot.cjs", "cli.cjs", "cli-quick.cjs"]) {
    await fs.copyFile(path.join(PROJECT_ROOT, "build", file), path.join(copy, file));
  }
  const wrapped = await fs.readFile(path.join(copy, "cli-quick.cjs"), "latin1");
  expect(wrapped.startsWith("(function (exports, require, module, __filename, __dirname) { ")).toBe(true);
  // A bundle as esbuild writes it, without the wrapper: what an older build left.
  await fs.writeFile(path.join(copy, "cli-quick.cjs"), wrapped.slice(wrapped.indexOf("{") + 2, -3), "latin1");
  const run = await execa(
    process.execPath,
    [
      "-e",
      `require(${JSON.stringify(path.join(copy, "boot.cjs"))}).boot(process.argv.slice(0, 1).concat(["x", "ls"]))`,
    ],
    { env: box.env, extendEnv: false, cwd: repo, reject: false, timeout: 30_000 },
  );
  expect(run.exitCode).not.toBe(0);
  expect(run.stderr).toContain(
    `${path.join(copy, "cli-quick.cjs")} was not built for this boot. Run \`npm run build:cli\``,
  );
});

// What a listing never needs is loaded when first used: execa (and node:child_process under it) on
// the first spawn (src/core/foundation/process.ts), node:crypto where something is hashed. Each of
// them is several milliseconds of every `offrun ls` and `offrun start`, which spawn nothing.
test("ls and --version load neither node:crypto nor node:child_process", async () => {
  const recorder = path.join(box.dir, "record-builtins.cjs");
  await fs.writeFile(
    recorder,
    'process.on("exit", () => require("fs").writeFileSync(process.env.BUILTINS_OUT, process.moduleLoadList.join("\\n")));\n',
  );
  // An agent on record: the listing reads it and checks git's index for committed records.
  const agents = path.join(repo, ".offrun", "agents");
  await fs.mkdir(agents, { recursive: true });
  await fs.writeFile(path.join(agents, "fix-upload.json"), JSON.stringify(agentRecord(repo, "fix-upload")));
  const loaded = async (args: string[]) => {
    const out = path.join(box.dir, `builtins-${args.join("-")}`);
    const env = { ...box.env, NODE_OPTIONS: `--require ${recorder}`, BUILTINS_OUT: out };
    // Twice: the second run starts from the code cache the first one wrote, as every later run does.
    for (let run = 0; run < 2; run++) expect(await runOffrun(args, { env, cwd: repo })).toSucceed();
    return (await fs.readFile(out, "utf8")).split("\n");
  };
  const listed = await loaded(["ls"]);
  expect(listed).toContain("NativeModule fs");
  for (const modules of [listed, await loaded(["--version"])]) {
    expect(modules).not.toContain("NativeModule crypto");
    expect(modules).not.toContain("NativeModule child_process");
  }
  // The listing did reach the record and the index check (its cache of git's answer).
  expect((await runOffrun(["ls"], { env: box.env, cwd: repo })).stdout).toContain("fix-upload");
  expect(await fs.readdir(path.join(box.offrunHome, "cache", "tracked-state"))).toHaveLength(1);
});

// The everyday commands (src/cli/quick-words.ts) start from build/cli-quick.cjs, about half of
// build/cli.cjs: a start pays for the size of the bundle it loads.
test("the everyday commands run from the quick bundle, every other command from the whole one", async () => {
  const ran = async (args: string[]) => {
    const before = new Set(await caches());
    const run = await runOffrun(args, { env: box.env, cwd: repo });
    expect(run).toSucceed();
    const added = (await caches()).filter((f) => !before.has(f));
    return { run, cache: added.map((f) => f.slice(f.indexOf("-") + 1)) };
  };
  expect((await ran(["show", "fix-upload"])).cache).toEqual(["quick-show.v8"]);
  expect((await ran(["ls", "--json"])).cache).toEqual([]); // quick-ls.v8 is there already
  // A global option before the command: the whole CLI, which knows every command, reads it.
  const first = await ran(["--json", "ls"]);
  expect(first.cache).toEqual(["ls.v8"]);
  expect(JSON.parse(first.run.stdout)).toMatchObject({ agents: [{ name: "fix-upload" }] });
  expect((await ran(["memory", "show"])).cache).toEqual(["memory.v8"]);
  // Help of a quick command comes from the quick bundle, with its own options.
  const help = await ran(["start", "--help"]);
  expect(help.cache).toEqual(["quick-start.v8"]);
  expect(help.run.stdout).toContain("--prompt-file <file>");
});

test("the quick bundle holds none of the companion, the CLIs' adapters or the dashboard", async () => {
  const modules = async (bundle: string) =>
    (await fs.readFile(path.join(PROJECT_ROOT, "build", bundle), "latin1"))
      .split("\n")
      .filter((line) => line.startsWith("// src/"))
      .map((line) => line.slice(3));
  const [whole, quick] = await Promise.all([modules("cli.cjs"), modules("cli-quick.cjs")]);
  expect(quick).toContain("src/cli/view-actions.ts");
  expect(quick).toContain("src/cli/agent-actions.ts");
  const heavy = (file: string) =>
    file.startsWith("src/harnesses/") ||
    file === "src/cli/dashboard.ts" ||
    (file.startsWith("src/core/companion/") && file !== "src/core/companion/node-flags.ts");
  expect(quick.filter(heavy)).toEqual([]);
  expect(whole.filter(heavy).length).toBeGreaterThan(50);
  const size = async (bundle: string) => (await fs.stat(path.join(PROJECT_ROOT, "build", bundle))).size;
  expect(await size("cli-quick.cjs")).toBeLessThan((await size("cli.cjs")) * 0.6);
});
