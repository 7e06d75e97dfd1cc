import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { closingLine, type RunCounts } from "../helpers/closing-line.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const reporter = join(root, "test/helpers/closing-line.js");
const jestBin = join(root, "node_modules/jest/bin/jest.js");

// CI reads a run's closing line as its count: it must say a failure whenever Jest saw one.
const results = (counts: Partial<RunCounts>): RunCounts => ({
  numPassedTests: 0,
  numFailedTests: 0,
  numRuntimeErrorTestSuites: 0,
  numPendingTests: 0,
  numTodoTests: 0,
  ...counts,
});

test("the closing line counts passed and failed tests, and skipped ones when there are any", () => {
  expect(closingLine(results({ numPassedTests: 1260 }))).toBe("1260 passed, 0 failed");
  expect(closingLine(results({ numPassedTests: 3, numFailedTests: 2, numPendingTests: 1, numTodoTests: 1 }))).toBe(
    "3 passed, 2 failed, 2 skipped",
  );
});

test("a suite that could not run counts as a failure, so a broken file never reads as a pass", () => {
  expect(closingLine(results({ numPassedTests: 10, numRuntimeErrorTestSuites: 1 }))).toBe("10 passed, 1 failed");
});

test("a real Jest run ends its standard output with the closing line, after a pass and a failure", async () => {
  const dir = await mkdtemp(join(process.env.TMPDIR ?? tmpdir(), "closing-line-"));
  await writeFile(
    join(dir, "one.check.js"),
    'test("passes", () => {});\ntest("fails", () => { throw new Error("no"); });\n',
  );
  const config = { rootDir: dir, testMatch: ["**/*.check.js"], reporters: ["default", reporter], transform: {} };
  const run = await execa(
    process.execPath,
    ["--experimental-vm-modules", jestBin, "--config", JSON.stringify(config), "--ci"],
    { cwd: dir, reject: false, timeout: 60_000, env: { NO_COLOR: "1" } },
  );
  expect(run.exitCode).toBe(1);
  expect(run.stdout.trimEnd().split("\n").at(-1)).toBe("1 passed, 1 failed");
  // Jest's own summary stays on standard error, so the count is the only such line on standard output.
  expect(run.stderr).toContain("Tests:       1 failed, 1 passed, 2 total");
});
