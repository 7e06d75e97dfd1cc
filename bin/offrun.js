#!/usr/bin/env node
// The CLI is compiled by `npm run build:cli` (run by `npm ci` through `prepare`).
import module from "node:module";

// Node 22.1+ keeps the compiled code of the bundle between runs: every `offrun` starts sooner.
// Node 20 has no such cache and goes on without it.
module.enableCompileCache?.();

import("../build/src/cli/main.js").then(
  (cli) => cli.main(process.argv),
  (error) => {
    console.error(`offrun is not built (${error.message}). Run \`npm run build:cli\` in the Offrun checkout.`);
    process.exit(1);
  },
);
