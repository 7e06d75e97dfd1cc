import { closingLine, type RunCounts } from "../helpers/closing-line.js";

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
  expect(closingLine(results({ numPassedTests: 1260 }))).toBe("Tests: 1260 passed, 0 failed");
  expect(closingLine(results({ numPassedTests: 3, numFailedTests: 2, numPendingTests: 1, numTodoTests: 1 }))).toBe(
    "Tests: 3 passed, 2 failed, 2 skipped",
  );
});

test("a suite that could not run counts as a failure, so a broken file never reads as a pass", () => {
  expect(closingLine(results({ numPassedTests: 10, numRuntimeErrorTestSuites: 1 }))).toBe("Tests: 10 passed, 1 failed");
});
