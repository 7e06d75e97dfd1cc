#!/usr/bin/env node
// The CLI is compiled by `npm run build:cli` (run by `npm ci` through `prepare`). build/boot.js
// starts it with V8's code cache (src/cli/boot.ts).
import("../build/boot.js").then(
  (cli) => cli.boot(process.argv),
  (error) => {
    console.error(`offrun is not built (${error.message}). Run \`npm run build:cli\` in the Offrun checkout.`);
    process.exit(1);
  },
);
