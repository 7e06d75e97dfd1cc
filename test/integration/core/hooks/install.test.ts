import fs from "node:fs/promises";
import path from "node:path";
import { installHook } from "../../../../src/core/hooks/install.js";
import { BUILTIN_HARNESSES } from "../../../../src/harnesses/registry.js";
import { makeSandbox, type Sandbox } from "../../../helpers/offrun.js";
import { itWithTmpfs, leaveFree, mountTmpfs, unmountTmpfs } from "../../../helpers/tmpfs.js";

// `offrun hooks install` rewrites a CLI's own settings file: on a disk without room for the new
// file (a real small tmpfs) the CLI's file must stay as it was, not be left half written.

let box: Sandbox;
let disk: string | undefined;
beforeAll(async () => {
  box = await makeSandbox("offrun-hookfull-");
});
afterAll(async () => {
  if (disk) await unmountTmpfs(disk);
  await box.cleanup();
});

itWithTmpfs("a hooks install on a full disk leaves Claude Code's settings.json whole and as it was", async () => {
  // Broke: a plain write truncated settings.json, then ran out of room: the CLI's settings were not JSON.
  disk = path.join(box.dir, "disk");
  await mountTmpfs(disk, "256k");
  const home = path.join(disk, "claude-home");
  await fs.mkdir(home);
  const settings = path.join(home, "settings.json");
  // Two pages of the user's own settings, near full: with the hook added it needs a third.
  const settingsOf = (n: number) =>
    JSON.stringify({ permissions: { allow: Array.from({ length: n }, (_, i) => `Bash(tool-${i})`) } }, null, 2) + "\n";
  let count = 1;
  while (Buffer.byteLength(settingsOf(count + 1)) <= 8000) count += 1;
  const text = settingsOf(count);
  await fs.writeFile(settings, text);
  expect(Buffer.byteLength(text)).toBeGreaterThan(4096);
  expect(Buffer.byteLength(text)).toBeLessThanOrEqual(8192);
  // Room for the backup (two pages) and nothing more.
  await leaveFree(path.join(disk, "filler"), 8192);

  const harness = BUILTIN_HARNESSES.find((h) => h.id === "claude")!;
  const install = installHook({
    harness,
    login: { label: "default", home },
    hookArgv: ["/usr/bin/node", "/opt/offrun/bin/offrun.js"],
    env: box.env,
  });
  await expect(install).rejects.toMatchObject({ code: "ENOSPC" });
  expect(await fs.readFile(settings, "utf8")).toBe(text);
  expect((await fs.readdir(home)).filter((name) => name.endsWith(".tmp"))).toEqual([]);
});
