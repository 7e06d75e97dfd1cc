import fs from "node:fs";
import path from "node:path";
import { HOME_ARGUMENT, hookInboxFile } from "../core/hooks/hook-paths.js";
import { offrunHome } from "../core/foundation/paths.js";

/**
 * `offrun hook <harness> [payload]`: what an agent CLI runs on its own hook events (Claude Code
 * hooks send JSON on stdin; Codex's notify passes it as the last argument). It appends the payload
 * to `~/.offrun/inbox/hooks.jsonl` for the companion and exits 0 at once, whatever happens: a
 * hook that fails, prints or waits would disturb the user's session. So this path imports only
 * Node built-ins, paths.ts and a constant (no zod, no execa), prints nothing, and reads stdin for
 * 2 s at most. A `--offrun-home=<dir>` first argument names Offrun's home (the CLI's environment
 * has no OFFRUN_HOME).
 */

const STDIN_WAIT_MS = 2_000;
// A Stop payload carries the last assistant message; beyond this the line is not worth keeping whole.
const MAX_PAYLOAD_BYTES = 1024 * 1024;

export async function hook(harness: string, args: string[] = []): Promise<void> {
  try {
    const homeArg = args[0]?.startsWith(HOME_ARGUMENT) ? args[0].slice(HOME_ARGUMENT.length) : undefined;
    const rest = homeArg === undefined ? args : args.slice(1);
    const raw = rest.length > 0 ? rest[rest.length - 1]! : await readStdin();
    appendToInbox(offrunHome(homeArg ? { ...process.env, OFFRUN_HOME: homeArg } : process.env), harness, raw);
  } catch {
    // Nothing to report to: the CLI that ran us ignores our output, and the user must not see it.
  }
  process.exit(0);
}

/** Stdin, up to MAX_PAYLOAD_BYTES and STDIN_WAIT_MS; empty for a terminal. */
function readStdin(): Promise<string> {
  const stdin = process.stdin;
  if (stdin.isTTY) return Promise.resolve("");
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      clearTimeout(timer);
      stdin.removeAllListeners("data");
      stdin.pause();
      resolve(Buffer.concat(chunks).toString("utf8"));
    };
    const timer = setTimeout(done, STDIN_WAIT_MS);
    stdin.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= MAX_PAYLOAD_BYTES) done();
    });
    stdin.once("end", done);
    stdin.once("error", done);
  });
}

/** One JSON line, in one write with O_APPEND, so lines from hooks running at once never interleave. */
function appendToInbox(home: string, harness: string, raw: string): void {
  const file = hookInboxFile(home);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const truncated = Buffer.byteLength(raw) > MAX_PAYLOAD_BYTES;
  const entry = {
    harness,
    receivedAt: new Date().toISOString(),
    payload: truncated ? null : parsePayload(raw),
    ...(truncated ? { truncated: true } : {}),
  };
  const fd = fs.openSync(file, "a", 0o600);
  try {
    fs.writeSync(fd, JSON.stringify(entry) + "\n");
  } finally {
    fs.closeSync(fd);
  }
}

/** The payload as JSON when it is JSON; otherwise its text (the companion decides what it means). */
function parsePayload(raw: string): unknown {
  const text = raw.trim();
  if (text === "") return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
