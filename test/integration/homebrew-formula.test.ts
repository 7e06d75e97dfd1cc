import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { PROJECT_ROOT, makeSandbox, type Sandbox } from "../helpers/offrun.js";

// packaging/homebrew/offrun.rb installs the npm package from the registry: its url, sha256 and
// version must be those of the tarball `npm run pack:cli` makes now, which is what `npm publish`
// sends. When this fails after a change to what ships (src, docs/, the README), run `npm run formula`.

let box: Sandbox;
beforeAll(async () => {
  box = await makeSandbox("offrun-formula-");
});
afterAll(async () => {
  await box.cleanup();
});

test("the Homebrew formula names the freshly packed tarball's registry url, sha256 and version", async () => {
  const packed = await execa(process.execPath, [path.join(PROJECT_ROOT, "scripts", "pack-cli.mjs"), box.dir], {
    env: { ...process.env, HOME: box.home, TMPDIR: box.tmp, npm_config_cache: path.join(box.home, ".npm") },
    timeout: 180_000,
  });
  const tarball = packed.stdout.split("\n")[0]!;
  const manifest = JSON.parse((await execa("tar", ["xzOf", tarball, "package/package.json"])).stdout) as {
    name: string;
    version: string;
    bin: Record<string, string>;
  };
  expect(manifest.bin).toEqual({ offrun: "bin/offrun.js" });

  const formula = await fs.readFile(path.join(PROJECT_ROOT, "packaging", "homebrew", "offrun.rb"), "utf8");
  const field = (name: string) => new RegExp(`^  ${name} "([^"]+)"$`, "m").exec(formula)?.[1];
  expect(field("url")).toBe(`https://registry.npmjs.org/${manifest.name}/-/${manifest.name}-${manifest.version}.tgz`);
  // Homebrew reads the version from the url's file name.
  expect(/-(\d+\.\d+\.\d+)\.tgz$/.exec(field("url") ?? "")?.[1]).toBe(manifest.version);
  const sha256 = createHash("sha256")
    .update(await fs.readFile(tarball))
    .digest("hex");
  expect(field("sha256")).toBe(sha256);
  expect(formula).toMatch(/^class Offrun < Formula$/m);
  expect(formula).toContain('depends_on "node"');
  expect(formula).toContain('system "npm", "install", *std_npm_args');
});
