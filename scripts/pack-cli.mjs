#!/usr/bin/env node
// `npm run pack:cli`: the package users install, `npm install -g offrun` once it is published (this
// tarball is what `npm publish` sends), or `npm install -g ./pack/offrun-<version>.tgz` before. It holds the
// bundled CLI (which is also the companion) and nothing of the checkout: no tests, fixtures,
// benchmarks, sources or source maps, and none of the Raycast extension's dependencies. esbuild
// bundles every runtime dependency into build/ except node-notifier, which finds its platform
// notifier (terminal-notifier on macOS) in its own package folder, and the sandbox runtime, which
// finds its seccomp helper there. Prints the tarball's path and size.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

// `offrun` is free on the npm registry (`npm view offrun` answered 404, December 2026): the package
// and its command share the name. packaging/homebrew/offrun.rb installs the same tarball from there.
const PACKAGE_NAME = "offrun";
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const manifest = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
const out = path.resolve(process.argv[2] ?? path.join(root, "pack"));
const stage = path.join(out, "offrun");

if (!["cli.cjs", "cli-quick.cjs"].every((bundle) => fs.existsSync(path.join(root, "build", bundle)))) {
  console.error("pack-cli: build/ is missing. Run `npm run build:cli` first.");
  process.exit(1);
}
fs.rmSync(stage, { recursive: true, force: true });
// One tarball in the folder: the README installs `./pack/offrun-*.tgz`, and an older version's
// tarball left beside the new one would make that glob name two packages.
for (const old of fs.existsSync(out) ? fs.readdirSync(out) : []) {
  if (/^offrun-.*\.tgz$/.test(old)) fs.rmSync(path.join(out, old), { force: true });
}
fs.mkdirSync(path.join(stage, "bin"), { recursive: true });
for (const file of ["offrun.js", "package.json"]) {
  fs.copyFileSync(path.join(root, "bin", file), path.join(stage, "bin", file));
}
// The CLI's entry and its chunks; the benchmarks and the source maps stay behind.
fs.cpSync(path.join(root, "build"), path.join(stage, "build"), {
  recursive: true,
  filter: (source) => {
    const relative = path.relative(path.join(root, "build"), source);
    return !relative.startsWith("bench") && !relative.endsWith(".map");
  },
});
fs.copyFileSync(path.join(root, "README.md"), path.join(stage, "README.md"));
// The README links into docs/ (every command, how it works): they ship with it.
fs.cpSync(path.join(root, "docs"), path.join(stage, "docs"), { recursive: true });

const notifier = manifest.dependencies["node-notifier"];
fs.writeFileSync(
  path.join(stage, "package.json"),
  `${JSON.stringify(
    {
      name: PACKAGE_NAME,
      version: manifest.version,
      description: manifest.description,
      keywords: manifest.keywords,
      license: manifest.license,
      type: "module",
      bin: { offrun: "bin/offrun.js" },
      engines: manifest.engines,
      os: ["darwin", "linux"],
      files: ["bin", "build", "docs"],
      dependencies: {
        "node-notifier": notifier,
        "@anthropic-ai/sandbox-runtime": manifest.dependencies["@anthropic-ai/sandbox-runtime"],
      },
    },
    null,
    2,
  )}\n`,
);

const packed = JSON.parse(
  execFileSync("npm", ["pack", "--json", "--pack-destination", out], {
    cwd: stage,
    encoding: "utf8",
    timeout: 120_000,
  }),
)[0];
const tarball = path.join(out, packed.filename);
console.log(
  `${tarball}\npacked ${(packed.size / 1024).toFixed(0)} KB, unpacked ${(packed.unpackedSize / 1024).toFixed(0)} KB, ${packed.entryCount} files`,
);
