#!/usr/bin/env node
// The CLI is compiled by `npm run build:cli` (run by `npm ci` through `prepare`). build/boot.cjs
// starts it with V8's code cache (src/cli/boot.ts). This file is CommonJS (bin/package.json): an
// ES module entry loads Node's ESM loader first, about 8 ms of every start that nothing else needs.
"use strict";
// package.json's engines: npm only warns when they are not met, and an older Node fails later with
// an error that does not say why. 69 is what ~/.offrun/bin/offrun exits with when it finds no Node.
const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  console.error(
    `offrun needs Node.js 22.12 or newer, and this is ${process.version} (${process.execPath}). Install a newer one (brew install node, or https://nodejs.org/en/download) and run offrun again.`,
  );
  process.exit(69);
}
let cli;
try {
  cli = require("../build/boot.cjs");
} catch (error) {
  console.error(`offrun is not built (${error.message}). Run \`npm run build:cli\` in the Offrun checkout.`);
  process.exit(1);
}
cli.boot(process.argv);
