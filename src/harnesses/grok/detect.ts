import fs from "node:fs/promises";
import { OffrunError } from "../../core/foundation/errors.js";
import type { ProcessRunner } from "../../core/foundation/runner.js";

/**
 * Two programs install a `grok` binary: xAI's Grok Build, whose `grok --version` prints
 * "grok 1.0.6 (<commit>) [stable]" (xai-org/grok-build, xai-grok-pager-bin/src/main.rs,
 * `write_version` and its test `version_output_writer_preserves_channel_aware_contract`), and the
 * community `@vibe-kit/grok-cli` from npm (a Node script, dist/index.js, whose commander-based
 * `--version` prints a bare "0.0.34"). Only Grok Build speaks the streaming-json and ACP Offrun
 * uses, so every turn checks which one it was given, and that it is recent enough.
 */

export const GROK_BUILD_INSTALL = "https://x.ai/cli";

export type GrokBinaryKind = { isGrokBuild: true; version: string } | { isGrokBuild: false; what: string };

/** "grok 1.0.6 (7d67dea) [stable]": the word, the version, the commit in parentheses. */
const GROK_BUILD_VERSION = /^grok\s+v?(\d+\.\d+\.\d+)\S*\s+\(/im;
const BARE_SEMVER = /^v?\d+\.\d+\.\d+(?:-[\w.]+)?\s*$/;

const cache = new Map<string, GrokBinaryKind>();

async function firstBytes(file: string): Promise<string> {
  const handle = await fs.open(file, "r");
  try {
    const buffer = Buffer.alloc(256);
    const { bytesRead } = await handle.read(buffer, 0, 256, 0);
    return buffer.subarray(0, bytesRead).toString("latin1");
  } finally {
    await handle.close();
  }
}

/**
 * What the binary is, from its real path, its first line and its `--version` (cached per file and
 * mtime); `--version` runs through `runner`, like every other start of the CLI.
 */
export async function identifyGrokBinary(binary: string, runner: Pick<ProcessRunner, "run">): Promise<GrokBinaryKind> {
  const real = await fs.realpath(binary);
  const stat = await fs.stat(real);
  const key = `${real}\0${stat.mtimeMs}`;
  const known = cache.get(key);
  if (known) return known;

  let kind: GrokBinaryKind;
  const head = await firstBytes(real);
  const isScript = head.startsWith("#!");
  if (/node_modules[\\/]@vibe-kit[\\/]grok-cli[\\/]/.test(real)) {
    kind = { isGrokBuild: false, what: `the community Grok CLI (@vibe-kit/grok-cli from npm, ${real})` };
  } else {
    const result = await runner.run({ file: binary, args: ["--version"] }, { timeoutMs: 10_000, maxBuffer: 64_000 });
    const said = `${result.stdout}${result.stderr}`.trim().split("\n")[0]?.slice(0, 120) ?? "";
    // A script may print it too (a wrapper around the real binary): the commit part is Grok Build's own.
    const version = GROK_BUILD_VERSION.exec(said)?.[1];
    if (version) kind = { isGrokBuild: true, version };
    else if (BARE_SEMVER.test(said) && (isScript || /\bnode\b/.test(head.split("\n")[0] ?? ""))) {
      kind = {
        isGrokBuild: false,
        what: `the community Grok CLI (@vibe-kit/grok-cli, version ${said.trim()}; ${real})`,
      };
    } else {
      kind = {
        isGrokBuild: false,
        what: `an unknown program (${real}; \`grok --version\` printed "${said || "nothing"}")`,
      };
    }
  }
  cache.set(key, kind);
  return kind;
}

/** Whether dotted version `a` is older than `b`. */
function olderThan(a: string, b: string): boolean {
  const [x, y] = [a, b].map((v) => v.split(".").map(Number));
  for (let i = 0; i < 3; i++) if ((x![i] ?? 0) !== (y![i] ?? 0)) return (x![i] ?? 0) < (y![i] ?? 0);
  return false;
}

/**
 * Throws not_installed, saying what the binary is and how to get Grok Build, unless it is Grok
 * Build of `minimum` or later.
 */
export async function assertGrokBuild(
  binary: string,
  runner: Pick<ProcessRunner, "run">,
  minimum = "0.0.0",
): Promise<void> {
  const kind = await identifyGrokBinary(binary, runner);
  if (kind.isGrokBuild) {
    if (!olderThan(kind.version, minimum)) return;
    throw new OffrunError(
      "not_installed",
      `Grok Build ${kind.version} (${binary}) is older than ${minimum}, the oldest version Offrun works with. Run \`grok update\`, or install it again from ${GROK_BUILD_INSTALL}.`,
    );
  }
  throw new OffrunError(
    "not_installed",
    `The \`grok\` on your PATH is ${kind.what}, not xAI's Grok Build. Install Grok Build from ${GROK_BUILD_INSTALL} or point OFFRUN_GROK_BIN at it.`,
  );
}
