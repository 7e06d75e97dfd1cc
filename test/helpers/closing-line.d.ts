/** The counts of Jest's aggregated results that the closing line reads (closing-line.js). */
export interface RunCounts {
  numPassedTests: number;
  numFailedTests: number;
  numRuntimeErrorTestSuites: number;
  numPendingTests: number;
  numTodoTests: number;
}
export function closingLine(results: RunCounts): string;
export default class ClosingLine {
  onRunComplete(contexts: unknown, results: RunCounts): void;
}
