#!/usr/bin/env node
// Bundles the offrun CLI (and the benchmark) into build/. One bundle with a chunk per command
// starts in about half the time of hundreds of separate modules: Node 20 has no compile cache,
// and every command pays the start-up on each run.
import { build } from "esbuild";

await build({
  entryPoints: [
    "src/cli/main.ts",
    "bench/start-to-spawn.ts",
    "bench/quota-scan.ts",
    "bench/notify-watch.ts",
    "bench/vocabulary.ts",
    "bench/menu-bar.ts",
    "bench/failover.ts",
  ],
  outdir: "build",
  outbase: ".",
  bundle: true,
  splitting: true,
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
});
