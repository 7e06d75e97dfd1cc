import type { Command } from "../../core/foundation/process.js";
import type { LiveTurnIO } from "../types.js";

/**
 * The oldest agy Offrun drives: 1.1.12, the first release that honours `--mode` in headless runs
 * (before it, a Planner turn could edit). What Offrun needs arrived in this order: prompts on stdin
 * 1.1.2, `--output-format stream-json` 1.1.8, `--disable-slash-commands` 1.1.9, `--model` and
 * `--effort` honoured headless 1.1.10, `--mode` honoured headless 1.1.12. Taken from agy's release
 * notes and the tools that record it (docs/harnesses/agy.md); agy does not install here, so this
 * was never run against a real agy.
 */
export const AGY_MIN_VERSION = "1.1.12";
export const AGY_VERIFIED = "from the vendor's published source, not run here";

/** [major, minor, patch] of the first x.y.z in `text`; undefined for none or a prerelease. */
export function parseAgyVersion(text: string): [number, number, number] | undefined {
  const m = /(\d+)\.(\d+)\.(\d+)(-[0-9A-Za-z.-]+)?/.exec(text);
  if (!m || m[4]) return undefined;
  return [Number(m[1]), Number(m[2]), Number(m[3])];
}

export function isAtLeast(version: [number, number, number], min: string): boolean {
  const floor = min.split(".").map(Number);
  for (let i = 0; i < 3; i += 1) {
    if (version[i]! !== floor[i]!) return version[i]! > floor[i]!;
  }
  return true;
}

/**
 * Runs `agy --version` where the turn runs; a message that says what to do when it is older than
 * AGY_MIN_VERSION, undefined when it is new enough. A version Offrun cannot read is let through
 * (a newer agy may print it differently), and so is a failing check (the turn will say why).
 */
export async function agyTooOld(io: Pick<LiveTurnIO, "run">, base: Command): Promise<string | undefined> {
  const probe: Command = { file: base.file, args: ["--version"], ...(base.env ? { env: base.env } : {}) };
  const result = await io.run(probe, { timeoutMs: 15_000 }).catch(() => undefined);
  const text = `${result?.stdout ?? ""}\n${result?.stderr ?? ""}`;
  const version = parseAgyVersion(text);
  if (!version || isAtLeast(version, AGY_MIN_VERSION)) return undefined;
  return `agy ${version.join(".")} is older than ${AGY_MIN_VERSION}, the oldest Offrun can drive (before it, headless agy ignores --mode, so a Planner turn could edit files). Run \`agy update\`, then send the message again.`;
}
