#!/usr/bin/env node
// Installs the pinned agent CLIs the end-to-end tests drive, once, into .test-clis/ (git-ignored).
// They are not dependencies of the extension: users bring their own CLIs, signed in as themselves.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";

export const PINNED = {
  "@anthropic-ai/claude-code": "2.1.332",
  "@openai/codex": "0.171.0",
  "@google/gemini-cli": "0.61.0",
  "opencode-ai": "1.18.33",
  "@mariozechner/pi-coding-agent": "0.73.1",
  // Not an agent CLI: the quota benchmark (bench/quota-scan.ts) compares our session scan with it.
  ccusage: "20.0.24",
};

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dir = path.join(root, ".test-clis");

function installedVersion(name) {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, "node_modules", name, "package.json"), "utf8")).version;
  } catch {
    return undefined;
  }
}

const missing = Object.entries(PINNED).filter(([name, version]) => installedVersion(name) !== version);
const binariesPresent = ["claude", "codex", "gemini", "opencode", "pi"].every((b) =>
  fs.existsSync(path.join(dir, "node_modules", ".bin", b)),
);
if (missing.length === 0 && binariesPresent) {
  console.log(`test CLIs ready in ${dir}`);
  process.exit(0);
}

fs.mkdirSync(dir, { recursive: true });
// npm 11 runs no dependency install scripts unless allowed; Claude Code's and OpenCode's
// postinstall scripts put their binaries in place.
fs.writeFileSync(
  path.join(dir, "package.json"),
  JSON.stringify(
    {
      name: "offrun-test-clis",
      private: true,
      dependencies: PINNED,
      allowScripts: { "@anthropic-ai/claude-code": true, "opencode-ai": true },
    },
    null,
    2,
  ) + "\n",
);
console.log(
  `installing ${Object.entries(PINNED)
    .map(([n, v]) => `${n}@${v}`)
    .join(" ")} into ${dir} ...`,
);
await execa("npm", ["install", "--no-audit", "--no-fund", "--no-save", "--ignore-scripts=false"], {
  cwd: dir,
  stdio: "inherit",
  timeout: 15 * 60_000,
});
for (const name of Object.keys(PINNED)) {
  if (installedVersion(name) !== PINNED[name]) {
    console.error(`${name} did not install at ${PINNED[name]}`);
    process.exit(1);
  }
}
