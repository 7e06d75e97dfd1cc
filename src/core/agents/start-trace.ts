import fs from "node:fs";

/**
 * Where a start's time goes, for `npm run bench` (bench/start-to-spawn.ts): with
 * OFFRUN_START_TRACE naming a file in the companion's environment, each start appends one JSON
 * line with the milliseconds of each step and the wall-clock time it handed the turn on. Off
 * (one property read per step) unless that variable is set.
 */
export class StartTrace {
  private readonly file: string | undefined;
  private last = performance.now();
  private readonly steps: Record<string, number> = {};

  constructor(env: NodeJS.ProcessEnv) {
    this.file = env.OFFRUN_START_TRACE || undefined;
  }

  /** Ends a step: the time since the previous mark is its own. */
  mark(step: string): void {
    if (!this.file) return;
    const now = performance.now();
    this.steps[step] = Math.round((now - this.last) * 10) / 10;
    this.last = now;
  }

  /** Writes the line; a trace that cannot be written is dropped (it is for benchmarks only). */
  finish(agent: string): void {
    if (!this.file) return;
    const line = JSON.stringify({ agent, steps: this.steps, handedOnAt: Date.now() });
    fs.appendFile(this.file, `${line}\n`, () => undefined);
  }
}
