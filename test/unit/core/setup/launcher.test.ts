import fs from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { COMPANION_NODE_FLAGS } from "../../../../src/core/companion/node-flags.js";
import { copyBundledCli } from "../../../../src/core/setup/bundle.js";
import {
  NODE_PLACES,
  NO_NODE_EXIT,
  launcherPaths,
  stablePackageDir,
  writeLauncher,
} from "../../../../src/core/setup/launcher.js";
import { OFFRUN_BIN, PROJECT_ROOT, makeSandbox, type Sandbox } from "../../../helpers/offrun.js";

// The installed `offrun` is a sh launcher that finds a supported Node each time it runs: these run
// it for real, with PATHs and HOMEs made of temp folders holding links to this machine's node.

let box: Sandbox;
beforeEach(async () => {
  box = await makeSandbox("offrun-launcher-");
});
afterEach(async () => {
  await box.cleanup();
});

const version = async () =>
  (JSON.parse(await fs.readFile(path.join(PROJECT_ROOT, "package.json"), "utf8")) as { version: string }).version;

/** The places under $HOME only: this machine's /usr/bin/node would answer for every other one. */
const HOME_PLACES = NODE_PLACES.filter((place) => place.startsWith('"$HOME') || place.startsWith('"${'));

/** A folder holding `node`, a link to the node running the tests. */
async function nodeFolder(name: string): Promise<string> {
  const dir = path.join(box.dir, name);
  await fs.mkdir(dir, { recursive: true });
  await fs.symlink(process.execPath, path.join(dir, "node"));
  return dir;
}

function runLauncher(launcher: string, env: NodeJS.ProcessEnv, args = ["--version"]) {
  return execa(launcher, args, { env, extendEnv: false, reject: false, timeout: 30_000 });
}

test("the launcher is written whole with mode 755 and names no Node binary", async () => {
  const launcher = await writeLauncher(PROJECT_ROOT, box.env);
  expect(launcher).toBe(path.join(box.offrunHome, "bin", "offrun"));
  expect((await fs.stat(launcher)).mode & 0o777).toBe(0o755);
  const text = await fs.readFile(launcher, "utf8");
  expect(text.startsWith("#!/bin/sh\n")).toBe(true);
  // Node is looked for when it runs: the only one the text names is PATH's or a fixed place's.
  expect(text).toContain('exec "$offrun_node" ');
  expect(text).not.toMatch(/\d+\.\d+\.\d+/);
  expect(await fs.readdir(path.dirname(launcher))).toEqual(["offrun"]);
});

test("when PATH's node is removed, the launcher finds another supported Node and starts offrun", async () => {
  const first = await nodeFolder("first");
  const second = await nodeFolder("second");
  const launcher = await writeLauncher(PROJECT_ROOT, box.env, [path.join(second, "node")]);
  const env = { HOME: box.home, TMPDIR: box.tmp, OFFRUN_HOME: box.offrunHome, PATH: first };
  const before = await runLauncher(launcher, env);
  expect(before.stderr).toBe("");
  expect(before.stdout.trim()).toBe(await version());

  await fs.rm(path.join(first, "node"));
  const after = await runLauncher(launcher, env);
  expect(after.exitCode).toBe(0);
  expect(after.stdout.trim()).toBe(await version());
});

test("an old Node first on PATH is passed over for Volta's under $HOME", async () => {
  // A node that fails the version check, as Node 18 does.
  const old = path.join(box.dir, "old");
  await fs.mkdir(old);
  await fs.writeFile(path.join(old, "node"), "#!/bin/sh\nexit 1\n", { mode: 0o755 });
  // Volta's shim, which records that it ran.
  const volta = path.join(box.home, ".volta", "bin");
  await fs.mkdir(volta, { recursive: true });
  const mark = path.join(box.dir, "volta-ran");
  await fs.writeFile(path.join(volta, "node"), `#!/bin/sh\n: > '${mark}'\nexec '${process.execPath}' "$@"\n`, {
    mode: 0o755,
  });
  const launcher = await writeLauncher(PROJECT_ROOT, box.env, HOME_PLACES);
  const result = await runLauncher(launcher, { HOME: box.home, OFFRUN_HOME: box.offrunHome, PATH: old });
  expect(result.stdout.trim()).toBe(await version());
  await fs.stat(mark);
});

test("with no Node anywhere the launcher exits non-zero and says what to install", async () => {
  const empty = path.join(box.dir, "empty");
  await fs.mkdir(empty);
  const launcher = await writeLauncher(PROJECT_ROOT, box.env, HOME_PLACES);
  const result = await runLauncher(launcher, { HOME: box.home, OFFRUN_HOME: box.offrunHome, PATH: empty });
  expect(result.exitCode).toBe(NO_NODE_EXIT);
  expect(result.stdout).toBe("");
  expect(result.stderr).toContain("offrun needs Node.js 22.12 or newer");
  expect(result.stderr).toContain("brew install node");
  expect(result.stderr).toContain("https://nodejs.org/en/download");
});

test("OFFRUN_NODE is used, and the CLI copied beside the launcher runs without the checkout", async () => {
  const { lib } = launcherPaths(box.env);
  const copied = await copyBundledCli(PROJECT_ROOT, lib);
  expect(copied).toEqual({ dir: lib, version: await version(), missing: [] });
  await fs.stat(path.join(lib, "node_modules", "node-notifier", "package.json"));
  await fs.stat(path.join(lib, "node_modules", "@anthropic-ai", "sandbox-runtime", "package.json"));
  expect((await fs.readdir(path.join(lib, "build"))).sort()).toEqual(["boot.cjs", "cli-quick.cjs", "cli.cjs"]);
  const node = await nodeFolder("chosen");
  const launcher = await writeLauncher(lib, box.env, []);
  const result = await runLauncher(
    launcher,
    { HOME: box.home, OFFRUN_HOME: box.offrunHome, PATH: "", OFFRUN_NODE: path.join(node, "node") },
    ["harnesses", "--json"],
  );
  expect(result.stderr).toBe("");
  expect(result.exitCode).toBe(0);
});

test("the launcher starts the companion with its Node flags, and every other command without them", async () => {
  // Broke: the login service's companion ran with V8's default young generation (RSS 120-125 MB).
  // A stand-in node that passes the launcher's check and writes down how it was run.
  const dir = path.join(box.dir, "recording");
  await fs.mkdir(dir);
  const calls = path.join(box.dir, "calls");
  await fs.writeFile(
    path.join(dir, "node"),
    `#!/bin/sh\n[ "$1" = -e ] && exit 0\nprintf '%s ' "$@" >> '${calls}'\nprintf '\\n' >> '${calls}'\n`,
    { mode: 0o755 },
  );
  const launcher = await writeLauncher(PROJECT_ROOT, box.env, []);
  const env = { HOME: box.home, OFFRUN_HOME: box.offrunHome, PATH: dir };
  expect((await runLauncher(launcher, env, ["companion", "run"])).exitCode).toBe(0);
  expect((await runLauncher(launcher, env, ["companion", "status"])).exitCode).toBe(0);
  const bin = path.join(PROJECT_ROOT, "bin", "offrun.js");
  expect((await fs.readFile(calls, "utf8")).split("\n")).toEqual([
    `${[...COMPANION_NODE_FLAGS, bin, "companion", "run"].join(" ")} `,
    `${bin} companion status `,
    "",
  ]);
});

test("companion install, run by Raycast's versioned Node, writes a service that names no Node binary", async () => {
  // Raycast runs extensions with a Node in a folder named by its version, and puts it on PATH.
  const raycastNode = await nodeFolder("home/Library/Application Support/com.raycast.macos/NodeJS/runtime/22.14.0/bin");
  // No launchctl or systemctl here: the file is written and the commands to load it printed.
  const noManager = path.join(box.dir, "no-manager");
  await fs.mkdir(noManager);
  const env = { ...box.env, PATH: [raycastNode, noManager].join(":") };
  const result = await execa(path.join(raycastNode, "node"), [OFFRUN_BIN, "companion", "install", "--json"], {
    env,
    extendEnv: false,
    reject: false,
    timeout: 30_000,
  });
  expect(result.stderr).toBe("");
  const { file } = JSON.parse(result.stdout) as { file: string };
  const text = await fs.readFile(file, "utf8");
  const { launcher } = launcherPaths(box.env);
  const program =
    process.platform === "darwin" ? `<string>${launcher}</string>` : `ExecStart="${launcher}" "companion" "run"`;
  expect(text).toContain(program);
  expect(text).not.toContain(process.execPath);
  expect(text).not.toMatch(/\/node[<"\s]/);
  expect(text).not.toContain("com.raycast.macos");
  expect(text).not.toMatch(/\d+\.\d+\.\d+/);
  // The launcher it runs starts this checkout's offrun with the Node it finds then.
  const started = await runLauncher(launcher, env);
  expect(started.stdout.trim()).toBe(await version());

  // Raycast updates: its Node moves to a folder of the new version. The service, run as its
  // manager runs it (its program, with the environment the file gives it), still starts offrun.
  const runtimes = path.dirname(path.dirname(raycastNode));
  await fs.rename(path.join(runtimes, "22.14.0"), path.join(runtimes, "22.16.0"));
  // The user's own Node, where Volta keeps it (one of the usual places), is what the service
  // finds then: this machine's /usr/bin/node may be older than Offrun needs.
  await fs.mkdir(path.join(box.home, ".volta", "bin"), { recursive: true });
  await fs.symlink(process.execPath, path.join(box.home, ".volta", "bin", "node"));
  const serviceEnv: NodeJS.ProcessEnv = { HOME: box.home, TMPDIR: box.tmp };
  if (process.platform === "darwin") {
    for (const [, name, value] of text.matchAll(/<key>(\w+)<\/key>\s*<string>([^<]*)<\/string>/g)) {
      if (name === "PATH" || name === "OFFRUN_HOME") serviceEnv[name] = value;
    }
  } else {
    for (const [, name, value] of text.matchAll(/^Environment="(\w+)=([^"]*)"$/gm)) serviceEnv[name!] = value;
  }
  expect(serviceEnv.PATH).toBeDefined();
  expect(serviceEnv.PATH).not.toContain("com.raycast.macos");
  const afterUpdate = await runLauncher(launcher, serviceEnv);
  expect(afterUpdate.stderr).toBe("");
  expect(afterUpdate.stdout.trim()).toBe(await version());
});

test("a CLI installed by Homebrew is named by its opt link, which outlives `brew upgrade`", async () => {
  const prefix = path.join(box.dir, "homebrew");
  const cellar = path.join(prefix, "Cellar", "offrun", "0.1.0", "libexec", "lib", "node_modules", "offrun");
  await fs.mkdir(cellar, { recursive: true });
  await fs.mkdir(path.join(prefix, "opt"));
  await fs.symlink(path.join(prefix, "Cellar", "offrun", "0.1.0"), path.join(prefix, "opt", "offrun"));
  expect(await stablePackageDir(cellar)).toBe(
    path.join(prefix, "opt", "offrun", "libexec", "lib", "node_modules", "offrun"),
  );
  // No opt link (not Homebrew's layout after all): the folder as it is.
  await fs.rm(path.join(prefix, "opt", "offrun"));
  expect(await stablePackageDir(cellar)).toBe(cellar);
  expect(await stablePackageDir(PROJECT_ROOT)).toBe(PROJECT_ROOT);
});

test("offrun started by a Node older than 22.12 says so and exits as the launcher does without one", async () => {
  // This machine has no old Node: a preload makes this one report 22.11.0, as Node 22.11 would.
  const preload = path.join(box.dir, "old-node.cjs");
  await fs.writeFile(preload, "Object.defineProperty(process.versions, 'node', { value: '22.11.0' });\n");
  const result = await execa(process.execPath, ["--require", preload, OFFRUN_BIN, "--version"], {
    env: box.env,
    extendEnv: false,
    reject: false,
  });
  expect(result.exitCode).toBe(NO_NODE_EXIT);
  expect(result.stdout).toBe("");
  expect(result.stderr).toContain("offrun needs Node.js 22.12 or newer");
  expect(result.stderr).toContain("brew install node");
});
