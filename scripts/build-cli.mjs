#!/usr/bin/env node
// Bundles the offrun CLI (and the benchmarks) into build/. The CLI is a CommonJS file, build/cli.cjs,
// and the everyday commands alone in build/cli-quick.cjs, half its size; build/boot.cjs starts one
// of them with V8's code cache (src/cli/boot.ts): Node's own compile cache does not reach code run
// through vm, and every command pays its start-up on each run. Commands are still loaded
// lazily: esbuild keeps each `import()`ed module's code in a function that runs on first use.
// Code imports zod as `import * as z`: with `import { z }` esbuild keeps the whole namespace
// (every locale), 756 KB instead of 205 KB.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";

// A clean folder: nothing an earlier build left (its chunks, an older layout) can be run by mistake.
fs.rmSync("build", { recursive: true, force: true });

const shared = {
  outbase: ".",
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node22",
  sourcemap: true,
  logLevel: "warning",
  // Bundled CommonJS dependencies call require() for Node's built-ins and read __filename.
  banner: {
    js: [
      "import { createRequire as __offrunRequire } from 'node:module';",
      "import { fileURLToPath as __offrunPath } from 'node:url';",
      "const require = __offrunRequire(import.meta.url);",
      "const __filename = __offrunPath(import.meta.url);",
      "const __dirname = __filename.slice(0, __filename.lastIndexOf('/'));",
    ].join(" "),
  },
};

// The CLI and its boot are CommonJS: nothing in a start needs Node's ESM loader. import.meta.url
// becomes the file's URL, made from __filename.
const commonJs = {
  format: "cjs",
  banner: { js: "const __offrunUrl = require('node:url').pathToFileURL(__filename).href;" },
  define: { "import.meta.url": "__offrunUrl" },
  outExtension: { ".js": ".cjs" },
};

// The CLI on its own: a bundle shared with the benchmarks would carry what only they import (the
// benchmarks' `{ z }` import of zod kept all of zod, locales included). node-notifier stays a
// package of its own: it finds its platform's notifier (terminal-notifier on macOS) next to its own
// files, which a bundle would leave behind. So does the sandbox runtime, for its seccomp helper.
await build({
  ...shared,
  ...commonJs,
  // Two bundles of the same code: every command, and the everyday ones alone (src/cli/quick-words.ts).
  entryPoints: { cli: "src/cli/main.ts", "cli-quick": "src/cli/main-quick.ts" },
  outdir: "build",
  external: ["node-notifier", "@anthropic-ai/sandbox-runtime"],
  plugins: [lazyChildProcessForCommander(), builtinsLoadedOnUse()],
});
for (const bundle of ["build/cli.cjs", "build/cli-quick.cjs"]) {
  asciiOnly(bundle);
  wrapForBoot(bundle);
}
// What bin/offrun.js runs: reads the bundle and its code cache. Node's built-ins only.
await build({ ...shared, ...commonJs, entryPoints: { boot: "src/cli/boot.ts" }, outdir: "build" });

// Each benchmark in one file under build/bench, so that the test helpers it bundles find the
// checkout (and .test-clis) relative to their own file.
await build({
  ...shared,
  entryPoints: [
    "bench/start-to-spawn.ts",
    "bench/quota-scan.ts",
    "bench/notify-watch.ts",
    "bench/vocabulary.ts",
    "bench/menu-bar.ts",
    "bench/failover.ts",
    "bench/remote-ls.ts",
    "bench/ls-trust.ts",
    "bench/quarantine.ts",
    // Under build/bench with the benchmarks, so that pack-cli leaves it out of the package too.
    { in: "scripts/dictation-accuracy.ts", out: "bench/dictation-accuracy" },
  ],
  outdir: "build",
  splitting: false,
});

/**
 * commander requires node:child_process when it loads, for executable subcommands, which Offrun
 * does not have: about 7 ms of every command's start. Its copy is loaded when first used instead.
 */
function lazyChildProcessForCommander() {
  return {
    name: "lazy-child-process-for-commander",
    setup(builder) {
      builder.onResolve({ filter: /^(node:)?child_process$/ }, (args) =>
        args.importer.includes(`${path.sep}node_modules${path.sep}commander${path.sep}`)
          ? { path: "child_process", namespace: "offrun-lazy" }
          : undefined,
      );
      builder.onLoad({ filter: /.*/, namespace: "offrun-lazy" }, () => ({
        contents:
          'let loaded; module.exports = new Proxy({}, { get: (_, key) => (loaded ??= require("node:child_process"))[key] });',
        loader: "js",
      }));
    },
  };
}

/**
 * `await import("node:crypto")` loads a Node built-in when first needed: a command that hashes
 * nothing does not pay its 5 ms. Left as it is, esbuild keeps the import(), which the bundle cannot
 * run once it comes from V8's code cache (src/core/foundation/esm-import.ts), and which
 * would start Node's ES module loader. Here it becomes a require() of the built-in, on first use.
 */
function builtinsLoadedOnUse() {
  return {
    name: "builtins-loaded-on-use",
    setup(builder) {
      builder.onResolve({ filter: /^node:/ }, (args) =>
        args.kind === "dynamic-import" ? { path: args.path, namespace: "offrun-builtin" } : undefined,
      );
      builder.onLoad({ filter: /.*/, namespace: "offrun-builtin" }, (args) => ({
        contents: `module.exports = require(${JSON.stringify(args.path)});`,
        loader: "js",
      }));
    },
  };
}

/**
 * Writes every non-ASCII character of a bundle as its \\u escape: boot.ts reads an ASCII bundle as
 * latin1, about ten times faster than decoding UTF-8, at every start. The few there are sit in
 * comments, strings and regular expressions (· and ’ in limit messages, box drawing in a CLI's
 * output), where the escape means the same character (in a raw template or after a backslash it would not).
 */
function asciiOnly(file) {
  const text = fs.readFileSync(file, "utf8");
  // After a backslash the escape would be read as an escaped backslash and five letters.
  if (/String\.raw`[^`]*[\u0080-\uffff]|\\[\u0080-\uffff]/.test(text)) {
    throw new Error(`${file}: a non-ASCII character in a raw template or after a backslash cannot be escaped`);
  }
  const escaped = text.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  fs.writeFileSync(file, escaped);
}

/**
 * The boot (src/cli/boot.ts) compiles the bundle as one function, the wrapper Node puts around a
 * CommonJS module. Written into the file, on its first line so that its lines keep their numbers:
 * the boot then hands V8 the text as read, where joining it to the wrapper at every start cost
 * about 5 ms (a megabyte copied). The boot refuses a bundle that does not begin with it.
 */
function wrapForBoot(file) {
  const wrapper = "(function (exports, require, module, __filename, __dirname) { ";
  fs.writeFileSync(file, `${wrapper}${fs.readFileSync(file, "latin1")}\n})`, "latin1");
}

// The CLI that Set Up Offrun installs from the extension (src/commands/set-up-offrun.tsx): Raycast
// ships assets/ with the extension. It is copied the way the setup copies it (src/core/setup/bundle.ts,
// compiled here for this one call), with node-notifier, which the companion needs to start; the
// sandbox runtime (18 MB, for `--sandbox`, mostly Linux helpers) stays out of the extension.
const stager = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "offrun-stage-")), "bundle.mjs");
await build({ ...shared, banner: {}, entryPoints: ["src/core/setup/bundle.ts"], outfile: stager, sourcemap: false });
const { copyBundledCli } = await import(pathToFileURL(stager).href);
await copyBundledCli(".", path.join("assets", "offrun-cli"), ["node-notifier"]);
// The extension runs on macOS only: node-notifier's Windows notifiers (5 MB of .exe) stay out of it.
for (const windowsOnly of ["notifu", "snoreToast"]) {
  fs.rmSync(path.join("assets", "offrun-cli", "node_modules", "node-notifier", "vendor", windowsOnly), {
    recursive: true,
    force: true,
  });
}
fs.rmSync(path.dirname(stager), { recursive: true, force: true });
