import fs from "node:fs";
import os from "node:os";
import path from "node:path";

// Runs before every test file (jest setupFilesAfterEnv): HOME, TMPDIR and OFFRUN_HOME point at a temp
// folder of this file's own, so no test can read or write the real user's files by accident.
const root = fs.mkdtempSync(path.join(os.tmpdir(), "offrun-jest-"));
for (const [name, dir] of [
  ["HOME", "home"],
  ["TMPDIR", "tmp"],
  ["OFFRUN_HOME", "offrun"],
] as const) {
  const full = path.join(root, dir);
  fs.mkdirSync(full, { recursive: true });
  process.env[name] = full;
}

afterAll(() => {
  fs.rmSync(root, { recursive: true, force: true });
});
