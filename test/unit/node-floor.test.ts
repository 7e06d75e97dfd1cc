import fs from "node:fs/promises";
import path from "node:path";
import { MIN_NODE } from "../../src/core/foundation/install-commands.js";
import { PROJECT_ROOT } from "../helpers/offrun.js";

// The Node Offrun says it needs is written in many places a user or a build reads: package.json's
// engines, MIN_NODE (the launcher, Set Up Offrun, a host's doctor), bin/offrun.js's own check, the
// bundles' esbuild target, the README and the docs. Each is read back here and held to one floor,
// and the suite itself must run on a Node that meets it (the devDependency `node`, first on the
// PATH of npm scripts), so no text names a Node the tests never saw.

const floor = `${MIN_NODE.major}.${MIN_NODE.minor}`;
const read = (file: string) => fs.readFile(path.join(PROJECT_ROOT, file), "utf8");

type Manifest = { engines: { node: string }; devDependencies: Record<string, string> };

test("package.json's engines say the floor MIN_NODE holds", async () => {
  const manifest = JSON.parse(await read("package.json")) as Manifest;
  expect(manifest.engines.node).toBe(`>=${floor}`);
});

test("the suite runs on the Node it says it needs, the one package.json pins for the tests", async () => {
  const manifest = JSON.parse(await read("package.json")) as Manifest;
  const [major, minor] = process.versions.node.split(".").map(Number) as [number, number];
  expect(major > MIN_NODE.major || (major === MIN_NODE.major && minor >= MIN_NODE.minor)).toBe(true);
  expect(process.versions.node).toBe(manifest.devDependencies.node);
});

test("bin/offrun.js refuses the Node below the floor and names the floor", async () => {
  const bin = await read("bin/offrun.js");
  expect(bin).toContain(`major < ${MIN_NODE.major} || (major === ${MIN_NODE.major} && minor < ${MIN_NODE.minor})`);
  expect(bin).toContain(`offrun needs Node.js ${floor} or newer`);
});

test("the bundles are built for the floor's Node line", async () => {
  for (const script of ["scripts/build-cli.mjs", "scripts/screens.mjs"]) {
    const targets = [...(await read(script)).matchAll(/target: "node(\d+)"/g)].map((m) => Number(m[1]));
    expect({ script, targets }).toEqual({ script, targets: [MIN_NODE.major] });
  }
});

test("every Node version the README and the docs name as needed is the floor", async () => {
  const docs = (await fs.readdir(path.join(PROJECT_ROOT, "docs"))).filter((name) => name.endsWith(".md"));
  const named: string[] = [];
  for (const file of ["README.md", ...docs.map((name) => `docs/${name}`)]) {
    const text = await read(file);
    // "Node 22.12+", "Node.js 22.12+", "Node.js 22.12 or newer", "a Node 22.12+".
    for (const match of text.matchAll(/Node(?:\.js)? (\d+(?:\.\d+)?)(\+| or newer)/g)) {
      named.push(`${file}: ${match[0]}`);
      expect(`${file}: ${match[1]}`).toBe(`${file}: ${floor}`);
    }
  }
  // The README names it at least where a new user starts: above its first command, and in Install.
  expect(named.filter((line) => line.startsWith("README.md")).length).toBeGreaterThanOrEqual(2);
});
