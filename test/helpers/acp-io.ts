import { PassThrough } from "node:stream";
import { execa } from "execa";
import type { ParsedEvent } from "../../src/core/foundation/events.js";
import type { Command } from "../../src/core/foundation/process.js";
import type { Decision, LiveProcess, LiveTurnIO, PendingRequest } from "../../src/harnesses/types.js";
import { localRunner } from "../../src/core/foundation/runner.js";

/**
 * A LiveTurnIO for driving a harness's live turn directly, without the supervisor: it spawns with
 * execa (pipes both ways, own process group), answers each decision from a queue, collects the
 * events, and keeps the raw lines each side wrote (for recording fixtures).
 */
export interface TestIO extends LiveTurnIO {
  events: ParsedEvent[];
  requests: PendingRequest[];
  /** Lines the agent printed on stdout, verbatim. */
  agentLines: string[];
  /** Lines Offrun wrote to the agent's stdin. */
  clientLines: string[];
  argv: string[][];
  abort(): void;
}

function splitLines(sink: string[], forward?: (line: string) => void): (chunk: Buffer) => void {
  let pending = "";
  return (chunk) => {
    pending += chunk.toString("utf8");
    let newline = pending.indexOf("\n");
    while (newline >= 0) {
      const line = pending.slice(0, newline);
      if (line.trim() !== "") sink.push(line);
      forward?.(line);
      pending = pending.slice(newline + 1);
      newline = pending.indexOf("\n");
    }
  };
}

export function testIO(options: { decisions?: Decision[]; alwaysAllowed?: string[] } = {}): TestIO {
  const controller = new AbortController();
  const decisions = [...(options.decisions ?? [])];
  const io: TestIO = {
    events: [],
    requests: [],
    agentLines: [],
    clientLines: [],
    argv: [],
    signal: controller.signal,
    alwaysAllowed: options.alwaysAllowed ?? [],
    abort: () => controller.abort(),
    run: localRunner.run,
    emit: (events) => io.events.push(...events),
    decide: async (request) => {
      io.requests.push(request);
      const decision = decisions.shift();
      if (!decision) throw new Error(`test: no decision queued for ${request.text}`);
      return decision;
    },
    spawn(command: Command): LiveProcess {
      io.argv.push([command.file, ...command.args]);
      const child = execa(command.file, command.args, {
        cwd: command.cwd,
        env: command.env,
        extendEnv: command.env === undefined,
        stdin: "pipe",
        stdout: "pipe",
        stderr: "pipe",
        detached: true,
        reject: false,
        buffer: false,
      });
      let stderrTail = "";
      child.stderr?.on("data", (chunk: Buffer) => {
        stderrTail = (stderrTail + chunk.toString("utf8")).slice(-8_000);
      });
      // The companion's contract (LiveProcess.stdout): one line per chunk, without its "\n".
      const lines = new PassThrough({ objectMode: true });
      child.stdout?.on(
        "data",
        splitLines(io.agentLines, (line) => lines.write(line)),
      );
      child.stdout?.on("end", () => lines.end());
      const stdin = new PassThrough();
      stdin.on("data", splitLines(io.clientLines));
      stdin.pipe(child.stdin!);
      const kill = () => {
        if (child.pid === undefined || child.exitCode !== null) return;
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {
          // already gone
        }
      };
      return {
        stdin,
        stdout: lines,
        exited: child.then((result) => ({
          exitCode: result.exitCode,
          ...(result.signal ? { signal: result.signal } : {}),
          stderrTail,
        })),
        kill,
      };
    },
  };
  return io;
}
