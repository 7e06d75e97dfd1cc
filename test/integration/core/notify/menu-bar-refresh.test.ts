import fs from "node:fs/promises";
import path from "node:path";
import { refreshMenuBar } from "../../../../src/core/notify/menu-bar-refresh.js";
import { makeSandbox, type Sandbox } from "../../../helpers/offrun.js";

// When an agent starts needing the user, the companion asks Raycast to run the menu bar command
// now, in the background, so "needs you" is seconds late, not a minute: `open -g <deeplink>` on
// macOS with Raycast installed. A stub `open` records the argv it is run with.

let box: Sandbox;
let calls: string;
let env: NodeJS.ProcessEnv;
beforeEach(async () => {
  box = await makeSandbox("offrun-menu-refresh-");
  const bin = path.join(box.dir, "bin");
  calls = path.join(box.dir, "open.calls");
  await fs.mkdir(bin);
  await fs.writeFile(path.join(bin, "open"), `#!/bin/sh\nprintf '%s\\n' "$@" >> '${calls}'\n`, { mode: 0o755 });
  env = { ...box.env, PATH: `${bin}${path.delimiter}${box.env.PATH ?? ""}` };
  await fs.mkdir(path.join(box.home, "Applications", "Raycast.app"), { recursive: true });
});
afterEach(async () => {
  await box.cleanup();
});

test("on macOS with Raycast it runs open -g with the menu bar command's background deeplink", async () => {
  const log: string[] = [];
  await refreshMenuBar((line) => log.push(line), { platform: "darwin", home: box.home, env });
  expect((await fs.readFile(calls, "utf8")).trim().split("\n")).toEqual([
    "-g",
    "raycast://extensions/offrun/offrun/agent-quota?launchType=background",
  ]);
  expect(log).toEqual([]);
});

test("without Raycast, or off macOS, it runs nothing; a failing open is said in the log", async () => {
  await refreshMenuBar(() => undefined, { platform: "linux", home: box.home, env });
  await refreshMenuBar(() => undefined, { platform: "darwin", home: path.join(box.dir, "nobody"), env });
  await expect(fs.access(calls)).rejects.toThrow();
  await fs.writeFile(path.join(box.dir, "bin", "open"), "#!/bin/sh\necho 'LSOpenURLs failed' >&2\nexit 1\n");
  const log: string[] = [];
  await refreshMenuBar((line) => log.push(line), { platform: "darwin", home: box.home, env });
  expect(log).toEqual(["menu bar: could not ask Raycast to refresh it (LSOpenURLs failed)"]);
});
