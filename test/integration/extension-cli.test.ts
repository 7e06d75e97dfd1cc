import fs from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import * as z from "zod";
import { SANDBOX_RUNTIME } from "../../src/core/foundation/install-commands.js";
import { launcherPaths } from "../../src/core/setup/launcher.js";
import { sandboxInstallCommand, setUpOffrun } from "../../src/core/setup/set-up.js";
import { PROJECT_ROOT, makeSandbox, type Sandbox } from "../helpers/offrun.js";

// The CLI the Raycast extension carries (assets/offrun-cli, staged by `npm run build:cli`; `ray
// build` copies it into dist/assets unchanged, checked by .ci/run), moved out of the checkout as
// a Store install has it: no node_modules above it to fall back on. It runs from an empty HOME,
// Set Up Offrun installs it, and the sandbox runtime it leaves out is installed the way the
// warning says. What broke before: the step's fix was `npm install -g offrun` (no sandbox for the
// copy Set Up Offrun runs), and a runtime installed beside the copy still warned.

let box: Sandbox;
let env: NodeJS.ProcessEnv;
let extension: string;
beforeAll(async () => {
  box = await makeSandbox("offrun-ext-cli-");
  const nodeDir = path.join(box.dir, "node-bin");
  await fs.mkdir(nodeDir);
  await fs.symlink(process.execPath, path.join(nodeDir, "node"));
  env = { HOME: box.home, TMPDIR: box.tmp, OFFRUN_HOME: box.offrunHome, PATH: nodeDir, OFFRUN_NO_LOGIN_SERVICE: "1" };
  extension = path.join(box.dir, "extensions", "offrun", "assets", "offrun-cli");
  await fs.cp(path.join(PROJECT_ROOT, "assets", "offrun-cli"), extension, { recursive: true });
});
afterAll(async () => {
  await box.cleanup();
});

const version = z
  .object({ version: z.string() })
  .parse(JSON.parse(await fs.readFile(path.join(PROJECT_ROOT, "package.json"), "utf8"))).version;

test("the extension's CLI runs from a copy outside the checkout with an empty HOME", async () => {
  const run = await execa("node", [path.join(extension, "bin", "offrun.js"), "--version"], {
    env,
    extendEnv: false,
    timeout: 30_000,
  });
  expect(run.stdout.trim()).toBe(version);
});

test("Set Up Offrun from it warns that the sandbox is left out, and its fix gives the sandbox", async () => {
  const links = path.join(box.dir, "links");
  await fs.mkdir(links);
  const first = await setUpOffrun({ source: extension, env, platform: "linux", linkFolders: [links] });
  expect(first.ok).toBe(true);
  const cli = first.steps.find((s) => s.id === "cli")!;
  expect(cli.status).toBe("warning");
  expect(cli.detail).toContain("@anthropic-ai/sandbox-runtime was not found beside it");
  const { launcher, lib } = launcherPaths(env);
  expect(cli.fix).toBe(sandboxInstallCommand(env));
  expect(cli.fix).toBe(
    `npm install --prefix ${path.dirname(lib)} @anthropic-ai/sandbox-runtime@0.0.83 && ${launcher} companion install`,
  );
  const before = await execa(launcher, ["harnesses", "--json"], { env, extendEnv: false, timeout: 60_000 });
  expect(before.stdout).toContain("the sandbox runtime did not load");

  // What the fix's npm install leaves: the runtime and its dependencies in ~/.offrun/lib/node_modules.
  const modules = path.join(path.dirname(lib), "node_modules");
  for (const name of [SANDBOX_RUNTIME.name, "@pondwader/socks5-server", "node-forge"]) {
    await fs.cp(path.join(PROJECT_ROOT, "node_modules", name), path.join(modules, name), {
      recursive: true,
      dereference: true,
    });
  }
  const again = await setUpOffrun({ source: extension, env, platform: "linux", linkFolders: [links] });
  const cliAgain = again.steps.find((s) => s.id === "cli")!;
  expect([cliAgain.status, cliAgain.fix]).toEqual(["done", undefined]);
  // Set Up Offrun replaced the copy and left the runtime in place, and the CLI loads it.
  expect(await fs.readdir(path.join(modules, "@anthropic-ai"))).toEqual(["sandbox-runtime"]);
  const after = await execa(launcher, ["harnesses", "--json"], { env, extendEnv: false, timeout: 60_000 });
  expect(after.stdout).not.toContain("did not load");
});

test("the runtime the fix installs is the version the CLI is built against, and the README names it", async () => {
  const manifest = z
    .object({ dependencies: z.record(z.string(), z.string()) })
    .parse(JSON.parse(await fs.readFile(path.join(PROJECT_ROOT, "package.json"), "utf8")));
  expect(manifest.dependencies[SANDBOX_RUNTIME.name]).toBe(SANDBOX_RUNTIME.version);
  // The README gives a Raycast user the same command, for the default ~/.offrun.
  const readme = await fs.readFile(path.join(PROJECT_ROOT, "README.md"), "utf8");
  expect(readme.replace(/\s+/g, " ")).toContain(
    `npm install --prefix ~/.offrun/lib ${SANDBOX_RUNTIME.name}@${SANDBOX_RUNTIME.version} && ~/.offrun/bin/offrun companion install`,
  );
});
