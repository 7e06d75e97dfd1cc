#!/usr/bin/env node
// The CLI is compiled by `npm run build:cli` (run by `npm ci` through `prepare`). build/boot.cjs
// starts it with V8's code cache (src/cli/boot.ts). This file is CommonJS (bin/package.json): an
// ES module entry loads Node's ESM loader first, about 8 ms of every start that nothing else needs.
"use strict";
let cli;
try {
  cli = require("../build/boot.cjs");
} catch (error) {
  console.error(`offrun is not built (${error.message}). Run \`npm run build:cli\` in the Offrun checkout.`);
  process.exit(1);
}
cli.boot(process.argv);
