import fs from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { launcherPaths } from "../../../../src/core/setup/launcher.js";
import { setUpOffrun, type SetupResult } from "../../../../src/core/setup/set-up.js";
import { PROJECT_ROOT, makeSandbox, runOffrun, type Sandbox } from "../../../helpers/offrun.js";

// `offrun setup` and Set Up Offrun, on a real file system: the CLI copied, the launcher written and
// run, `offrun` linked, and the login service written through the launcher. No launchctl or
// systemctl is on PATH, as in a container: the service file is written and the commands are given.

let box: Sandbox;
let env: NodeJS.ProcessEnv;
let links: string;
beforeEach(async () => {
  box = await makeSandbox("offrun-setup-");
  const nodeDir = path.join(box.dir, "node-bin");
  await fs.mkdir(nodeDir);
  await fs.symlink(process.execPath, path.join(nodeDir, "node"));
  links = path.join(box.dir, "links");
  await fs.mkdir(links);
  env = { HOME: box.home, TMPDIR: box.tmp, OFFRUN_HOME: box.offrunHome, PATH: nodeDir };
});
afterEach(async () => {
  await box.cleanup();
});

test("setup copies the CLI, writes the launcher, links offrun and writes a service that runs the launcher", async () => {
  const result = await setUpOffrun({ source: PROJECT_ROOT, env, platform: "linux", linkFolders: [links] });
  const { launcher, lib } = launcherPaths(env);
  expect(result.steps.map((s) => [s.id, s.status])).toEqual([
    ["cli", "done"],
    ["launcher", "done"],
    ["node", "done"],
    ["link", "done"],
    ["service", "warning"],
  ]);
  expect(result).toMatchObject({ ok: true, launcher });
  expect(await fs.readlink(path.join(links, "offrun"))).toBe(launcher);
  const service = result.steps.find((s) => s.id === "service")!;
  expect(service.fix).toBe("systemctl --user daemon-reload && systemctl --user enable --now offrun-companion.service");
  const unit = await fs.readFile(path.join(box.home, ".config", "systemd", "user", "offrun-companion.service"), "utf8");
  expect(unit).toContain(`ExecStart="${launcher}" "companion" "run"`);
  expect(unit).not.toContain(process.execPath);
  // The launcher runs the copy, not the checkout.
  expect(await fs.readFile(launcher, "utf8")).toContain(`offrun_package='${lib}'`);
  const version = await execa(path.join(links, "offrun"), ["--version"], { env, extendEnv: false });
  expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
});

test("setup run again repeats every step, and leaves another offrun in the link folder alone", async () => {
  await setUpOffrun({ source: PROJECT_ROOT, env, platform: "linux", linkFolders: [links] });
  const again = await setUpOffrun({ source: PROJECT_ROOT, env, platform: "linux", linkFolders: [links] });
  expect(again.ok).toBe(true);
  expect(again.steps.find((s) => s.id === "link")?.status).toBe("done");

  const other = path.join(box.dir, "other");
  await fs.mkdir(other);
  await fs.writeFile(path.join(other, "offrun"), "#!/bin/sh\necho npm's offrun\n", { mode: 0o755 });
  const beside = await setUpOffrun({ source: PROJECT_ROOT, env, platform: "linux", linkFolders: [other] });
  const link = beside.steps.find((s) => s.id === "link")!;
  expect(link.status).toBe("warning");
  expect(link.fix).toBe(`export PATH="${path.join(box.offrunHome, "bin")}:$PATH"`);
  expect(await fs.readFile(path.join(other, "offrun"), "utf8")).toContain("npm's offrun");
});

test("with no usable Node, setup stops after the launcher and names what to install", async () => {
  const result = await setUpOffrun({
    source: PROJECT_ROOT,
    env: { ...env, OFFRUN_NODE: path.join(box.dir, "no-such-node") },
    platform: "linux",
    linkFolders: [links],
  });
  expect(result.ok).toBe(false);
  const node = result.steps.find((s) => s.id === "node")!;
  expect(node).toMatchObject({ status: "failed", fix: "brew install node" });
  expect(node.detail).toContain("OFFRUN_NODE is");
  expect(node.detail).toContain("https://nodejs.org/en/download");
  expect(result.steps.filter((s) => s.status === "skipped").map((s) => s.id)).toEqual(["link", "service"]);
  expect(await fs.readdir(links)).toEqual([]);
});

test("a source without the bundled CLI fails the first step and says what is missing", async () => {
  const empty = path.join(box.dir, "not-built");
  await fs.mkdir(empty);
  const result = await setUpOffrun({ source: empty, env, platform: "linux", linkFolders: [links] });
  expect(result.steps[0]).toMatchObject({ id: "cli", status: "failed" });
  expect(result.steps[0]!.detail).toContain(path.join(empty, "bin/offrun.js"));
  expect(result.steps.slice(1).every((s) => s.status === "skipped")).toBe(true);
});

test("offrun setup uses its own package where it is, so an npm or Homebrew upgrade reaches the service", async () => {
  const result = await runOffrun(["setup", "--json"], {
    env: { ...env, OFFRUN_LINK_DIR: links },
  });
  expect(result.stderr).toBe("");
  const setup = JSON.parse(result.stdout) as SetupResult;
  expect(setup.steps.map((s) => [s.title, s.status])).toEqual([
    ["Use the Installed CLI", "done"],
    ["Write the Launcher", "done"],
    ["Find Node.js", "done"],
    ["Put Offrun on PATH", "done"],
    ["Start Companion at Login", "warning"],
  ]);
  const { launcher, lib } = launcherPaths(env);
  expect(await fs.readFile(launcher, "utf8")).toContain(`offrun_package='${PROJECT_ROOT}'`);
  await expect(fs.stat(lib)).rejects.toThrow();
  expect(await fs.readlink(path.join(links, "offrun"))).toBe(launcher);
});

test("setup again leaves the service's companion running when it already runs this version", async () => {
  // Regression guard: installing again restarts the service, and with it the turns it runs.
  await setUpOffrun({ source: PROJECT_ROOT, env, platform: "linux", linkFolders: [links] });
  // A companion marked as the service's, as the unit's Environment= marks it (started here by hand).
  expect(await runOffrun(["companion", "start"], { env: { ...env, OFFRUN_COMPANION_SERVICE: "1" } })).toSucceed();
  const before = JSON.parse((await runOffrun(["companion", "status", "--json"], { env })).stdout) as { pid: number };
  const again = await setUpOffrun({ source: PROJECT_ROOT, env, platform: "linux", linkFolders: [links] });
  const service = again.steps.find((s) => s.id === "service")!;
  expect(service.status).toBe("done");
  expect(service.detail).toContain("its companion runs offrun");
  const after = JSON.parse((await runOffrun(["companion", "status", "--json"], { env })).stdout) as { pid: number };
  expect(after.pid).toBe(before.pid);
  expect(await runOffrun(["companion", "stop"], { env })).toSucceed();
});

test("offrun setup --dry-run prints every file and link setup writes, writes none, and setup then writes those", async () => {
  const run = (args: string[]) => runOffrun(args, { env: { ...env, OFFRUN_LINK_DIR: links } });
  // Every run of offrun keeps Node's compile cache under ~/.offrun/cache: not a write of setup's.
  const cache = path.join(box.offrunHome, "cache");
  const tree = async () => (await listTree(box.dir)).filter((file) => file !== cache && !file.startsWith(`${cache}/`));
  const before = await tree();
  const dry = await run(["setup", "--dry-run"]);
  expect(dry).toSucceed();
  expect(await tree()).toEqual(before);
  const { launcher } = launcherPaths(env);
  const service = path.join(box.home, ".config", "systemd", "user", "offrun-companion.service");
  const link = path.join(links, "offrun");
  expect(dry.stdout).toContain("nothing is written now");
  for (const file of [launcher, link, service]) expect(dry.stdout).toContain(file);
  expect(dry.stdout).toContain("OFFRUN_LINK_DIR");
  // What it said, setup then does: each named file is there, and nothing else outside the offrun folders.
  expect(await run(["setup"])).toSucceed();
  for (const file of [launcher, link, service]) await expect(fs.lstat(file)).resolves.toBeDefined();
  const made = (await tree()).filter((file) => !before.includes(file));
  const named = (file: string) =>
    dry.stdout.split("\n").some((line) => line.includes(file)) ||
    [launcher, service, link].some((shown) => file.startsWith(`${shown}`) || shown.startsWith(`${file}/`)) ||
    file.startsWith(`${box.offrunHome}/`) ||
    file.startsWith(`${box.tmp}/`);
  expect(made.filter((file) => !named(file))).toEqual([]);
});

/** Every file and folder under `dir`, sorted. */
async function listTree(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true });
  return entries.map((entry) => path.join(entry.parentPath, entry.name)).sort();
}
