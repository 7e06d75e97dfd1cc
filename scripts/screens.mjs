#!/usr/bin/env node
// `npm run screens`: bundles test/screens/main.ts with @raycast/api replaced by the tests' one
// stand-in (test/helpers/raycast-api.ts, as jest.config.js maps it), then runs it: no jest, and the
// commands render exactly as in the command tests. Run after `npm run build:cli` (the scene runs
// the real `offrun` CLI).
import { spawnSync } from "node:child_process";
import path from "node:path";
import { build } from "esbuild";

const out = "build/screens/main.mjs";
await build({
  entryPoints: ["test/screens/main.ts"],
  outfile: out,
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node22",
  jsx: "automatic",
  sourcemap: true,
  logLevel: "warning",
  alias: { "@raycast/api": path.resolve("test/helpers/raycast-api.ts") },
  external: ["node-notifier", "@anthropic-ai/sandbox-runtime", "typescript"],
  banner: {
    js: "import { createRequire as __screensRequire } from 'node:module'; const require = __screensRequire(import.meta.url);",
  },
});
const run = spawnSync(process.execPath, ["--enable-source-maps", out], { stdio: "inherit" });
process.exit(run.status ?? 1);
