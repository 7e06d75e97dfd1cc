import fs from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { claudeWorld, type World } from "../helpers/e2e.js";
import { PROJECT_ROOT } from "../helpers/offrun.js";

// Offrun as users get it: `npm run pack:cli` makes the tarball, `npm install -g` puts it in an
// empty prefix under the test's own HOME, and the installed `offrun` (not the checkout's) shows
// its version and harnesses and runs an agent on the real Claude Code against the fake server.

let world: World;
let prefix: string;
let tarball: string;
const MAX_PACKED_BYTES = 2 * 1024 * 1024;

beforeAll(async () => {
  world = await claudeWorld("offrun-e2e-pkg-", { "README.md": "# demo\n" });
  prefix = path.join(world.box.dir, "prefix");
  const packed = await execa(process.execPath, [path.join(PROJECT_ROOT, "scripts", "pack-cli.mjs"), world.box.dir], {
    timeout: 180_000,
  });
  tarball = packed.stdout.split("\n")[0]!;
  // npm keeps its cache and config in the test's HOME, never the user's; it reaches the registry
  // as this machine does (its CA and proxy variables).
  await execa("npm", ["install", "-g", "--prefix", prefix, "--no-audit", "--no-fund", tarball], {
    env: { ...world.env, ...networkEnv(), npm_config_cache: path.join(world.box.home, ".npm") },
    extendEnv: false,
    timeout: 300_000,
  });
}, 600_000);

afterAll(async () => {
  await installed(["companion", "stop"]).catch(() => undefined);
  await world.close();
});

/** The variables that say how this machine reaches the npm registry (a CA bundle, a proxy). */
function networkEnv(): NodeJS.ProcessEnv {
  const names =
    /^(NODE_EXTRA_CA_CERTS|SSL_CERT_FILE|SSL_CERT_DIR|(HTTPS?|NO)_PROXY|npm_config_(registry|cafile|proxy|https_proxy|strict_ssl))$/i;
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => names.test(name)));
}

const installed = (args: string[]) =>
  execa(path.join(prefix, "bin", "offrun"), args, {
    cwd: world.repo,
    env: world.env,
    extendEnv: false,
    stdin: "ignore",
    reject: false,
    timeout: 180_000,
  });

test("the tarball holds the built CLI and nothing of the checkout, and is small", async () => {
  const listing = (await execa("tar", ["tzf", tarball])).stdout.split("\n");
  expect(listing).toContain("package/bin/offrun.js");
  expect(listing).toContain("package/bin/package.json");
  expect(listing).toContain("package/build/boot.cjs");
  expect(listing).toContain("package/build/cli.cjs");
  expect(listing).toContain("package/build/cli-quick.cjs");
  const leftBehind = (entry: string) =>
    /^package\/(src|test|bench|scripts|assets|build\/bench)\//.test(entry) ||
    entry.endsWith(".map") ||
    entry.includes("node_modules/");
  expect(listing.filter(leftBehind)).toEqual([]);
  expect((await fs.stat(tarball)).size).toBeLessThan(MAX_PACKED_BYTES);
});

test("the tarball's size the README and docs/development.md give is its size, within 15%", async () => {
  const kb = (await fs.stat(tarball)).size / 1024;
  for (const file of ["README.md", "docs/development.md"]) {
    const text = await fs.readFile(path.join(PROJECT_ROOT, file), "utf8");
    const said = /offrun-<version>\.tgz` \(about (\d+) KB/.exec(text);
    expect({ file, said: said !== null }).toEqual({ file, said: true });
    const ratio = Number(said![1]) / kb;
    expect({ file, said: Number(said![1]), measured: Math.round(kb), close: ratio > 0.85 && ratio < 1.15 }).toEqual({
      file,
      said: Number(said![1]),
      measured: Math.round(kb),
      close: true,
    });
  }
});

test("the installed offrun says its version and lists the harnesses", async () => {
  const manifest = JSON.parse(await fs.readFile(path.join(PROJECT_ROOT, "package.json"), "utf8")) as {
    version: string;
  };
  const version = await installed(["--version"]);
  expect(version.stdout.trim()).toBe(manifest.version);
  const harnesses = await installed(["harnesses"]);
  expect(harnesses).toSucceed();
  expect(harnesses.stdout).toContain("Claude Code");
});

test("the installed offrun runs an agent to the end, its companion started from the package", async () => {
  world.server.script({ kind: "text", text: "Hello from the installed package." });
  const started = await installed(["start", "--wait", "--name", "pkg", "say hello"]);
  expect(started.stderr).toBe("");
  expect(started).toSucceed();
  expect(started.stdout).toContain("Hello from the installed package.");
  const { pid } = JSON.parse((await installed(["companion", "status", "--json"])).stdout) as { pid: number };
  const command = await execa("ps", ["-o", "args=", "-p", String(pid)]);
  expect(command.stdout).toContain(path.join(prefix, "lib", "node_modules", "offrun", "bin", "offrun.js"));
});
