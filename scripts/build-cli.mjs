#!/usr/bin/env node
// Bundles the offrun CLI (and the benchmarks) into build/. One bundle with a chunk per command
// starts in about half the time of hundreds of separate modules: Node 20 has no compile cache,
// and every command pays the start-up on each run. Code imports zod as `import * as z`: with
// `import { z }` esbuild keeps the whole namespace (every locale), 756 KB instead of 205 KB.
import fs from "node:fs";
import { build } from "esbuild";

// Chunk names carry a content hash: without a clean folder, every build would leave its old chunks.
fs.rmSync("build", { recursive: true, force: true });

const shared = {
  outbase: ".",
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
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

// The CLI on its own: chunks shared with the benchmarks would carry what only they import (the
// benchmarks' `{ z }` import of zod kept all of zod, locales included, in the chunk every command loads).
// node-notifier stays a package of its own: it finds its platform's notifier (terminal-notifier on
// macOS) next to its own files, which a bundle would leave behind. So does the sandbox runtime, for
// its seccomp helper.
await build({
  ...shared,
  entryPoints: ["src/cli/main.ts"],
  outdir: "build",
  splitting: true,
  external: ["node-notifier", "@anthropic-ai/sandbox-runtime"],
});

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
    // Under build/bench with the benchmarks, so that pack-cli leaves it out of the package too.
    { in: "scripts/dictation-accuracy.ts", out: "bench/dictation-accuracy" },
  ],
  outdir: "build",
  splitting: false,
});
