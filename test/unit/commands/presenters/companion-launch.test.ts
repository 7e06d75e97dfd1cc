import fs from "node:fs/promises";
import path from "node:path";
import { COMPANION_NODE_FLAGS } from "../../../../src/core/companion/node-flags.js";
import { isOffrunError } from "../../../../src/core/foundation/errors.js";
import { writeLauncher } from "../../../../src/core/setup/launcher.js";
import { companionLaunch } from "../../../../src/commands/presenters/companion-launch.js";
import { PROJECT_ROOT, makeSandbox, type Sandbox } from "../../../helpers/offrun.js";

// How Raycast's Start Companion finds offrun: Set Up Offrun's launcher first, run as it is (it
// finds Node itself), then PATH and the usual folders; with none, the error leads to Set Up Offrun.

let box: Sandbox;
let env: NodeJS.ProcessEnv;
beforeEach(async () => {
  box = await makeSandbox("offrun-launch-");
  const empty = path.join(box.dir, "empty");
  await fs.mkdir(empty);
  // HOME is the sandbox's, so none of the usual folders under it holds an offrun.
  env = { HOME: box.home, TMPDIR: box.tmp, OFFRUN_HOME: box.offrunHome, PATH: empty };
});
afterEach(async () => {
  await box.cleanup();
});

test("Start Companion runs Set Up Offrun's launcher itself, not through the face's Node", async () => {
  const launcher = await writeLauncher(PROJECT_ROOT, env);
  const command = await companionLaunch({ nodePath: process.execPath, env });
  expect(command.file).toBe(launcher);
  expect(command.args).toEqual(["companion", "run"]);
});

test("an npm-linked offrun (bin/offrun.js) runs with the face's Node and the companion's Node flags", async () => {
  // Broke: the companion a face started ran with V8's default young generation (RSS 120-125 MB).
  const bin = path.join(box.dir, "npm", "bin");
  await fs.mkdir(bin, { recursive: true });
  await fs.symlink(path.join(PROJECT_ROOT, "bin", "offrun.js"), path.join(bin, "offrun"));
  const command = await companionLaunch({ nodePath: process.execPath, env: { ...env, PATH: bin } });
  expect(command.file).toBe(process.execPath);
  expect(command.args).toEqual([
    ...COMPANION_NODE_FLAGS,
    await fs.realpath(path.join(PROJECT_ROOT, "bin", "offrun.js")),
    "companion",
    "run",
  ]);
});

test("with no offrun anywhere, the error names Set Up Offrun and the npm package", async () => {
  // /usr/local/bin and /opt/homebrew/bin are among the usual folders: skip where this machine has an offrun.
  const elsewhere = await Promise.all(
    ["/usr/local/bin/offrun", "/opt/homebrew/bin/offrun", "/usr/bin/offrun"].map((f) =>
      fs.access(f).then(
        () => true,
        () => false,
      ),
    ),
  );
  if (elsewhere.some(Boolean)) return;
  const error = await companionLaunch({ nodePath: process.execPath, env }).catch((e: unknown) => e);
  expect(isOffrunError(error, "not_installed")).toBe(true);
  expect((error as Error).message).toBe(
    "The offrun CLI was not found. Run Set Up Offrun, or in a terminal `npm install -g offrun`, or set its path in the extension's preferences.",
  );
});
