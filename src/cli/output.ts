import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describeError, OffrunError } from "../core/foundation/errors.js";
import { visible, visibleJson } from "../core/foundation/visible.js";

/** Options every command takes. */
export interface GlobalOptions {
  project?: string;
  json?: boolean;
}

/** The package root (where bin/offrun.js lives), found upwards from this module wherever the build put it. */
export const packageRoot: string = (() => {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (fs.existsSync(path.join(dir, "bin", "offrun.js"))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return process.cwd();
    dir = parent;
  }
})();

export function offrunVersion(): string {
  try {
    const text = fs.readFileSync(path.join(packageRoot, "package.json"), "utf8");
    const match = /"version"\s*:\s*"([^"]+)"/.exec(text);
    return match?.[1] ?? "0.0.0";
  } catch {
    return "0.0.0";
  }
}

/** The directory a command works on: --project, else the cwd (the core finds the repository around it). */
export function projectDir(options: GlobalOptions): string {
  return path.resolve(options.project ?? process.cwd());
}

/**
 * Writes text for a person to the terminal. Every line the CLI prints goes through here, since
 * most carry text an agent, a CLI or a host wrote: its control characters are shown, never obeyed.
 * (JSON needs no help: JSON.stringify already escapes them.)
 */
export function print(stream: NodeJS.WritableStream, text: string): void {
  stream.write(visible(text));
}

/** Prints data as JSON for scripts, or as text for people. */
export function output(options: GlobalOptions, data: unknown, text: () => string): void {
  if (options.json) process.stdout.write(visibleJson(data, 2) + "\n");
  else {
    const rendered = text();
    if (rendered !== "") print(process.stdout, rendered.endsWith("\n") ? rendered : rendered + "\n");
  }
}

/** Exit codes: 1 for a failure, 2 for bad input a person can fix by changing the command. */
export function fail(error: unknown, json: boolean | undefined): never {
  const kind = error instanceof OffrunError ? error.kind : "process_failed";
  const message = describeError(error);
  if (json) process.stdout.write(visibleJson({ error: { kind, message } }, 2) + "\n");
  else print(process.stderr, `offrun: ${message}\n`);
  if (!(error instanceof OffrunError) && process.env.OFFRUN_DEBUG)
    print(process.stderr, `${(error as Error)?.stack}\n`);
  process.exit(kind === "invalid_input" || kind === "not_found" ? 2 : 1);
}
