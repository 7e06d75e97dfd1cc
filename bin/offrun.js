#!/usr/bin/env node
// The CLI is compiled by `npm run build:cli` (run by `npm ci` through `prepare`).
import("../build/src/cli/main.js").then(
  (cli) => cli.main(process.argv),
  (error) => {
    console.error(`offrun is not built (${error.message}). Run \`npm run build:cli\` in the Offrun checkout.`);
    process.exit(1);
  },
);
