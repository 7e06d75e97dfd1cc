import fs from "node:fs/promises";
import path from "node:path";
import { replaceFile } from "../foundation/atomic-write.js";
import { OffrunError } from "../foundation/errors.js";
import { MIN_NODE, NODE_DOWNLOAD_URL, NODE_INSTALL_COMMAND } from "../foundation/install-commands.js";
import { offrunHome } from "../foundation/paths.js";
import { COMPANION_NODE_FLAGS } from "../companion/node-flags.js";

export { MIN_NODE, NODE_DOWNLOAD_URL, NODE_INSTALL_COMMAND };

/**
 * The installed `offrun`: a POSIX sh launcher at ~/.offrun/bin/offrun that finds a supported Node
 * each time it runs and starts the CLI with it. Neither it nor the login service that runs it
 * names a Node binary: Raycast's own Node lives in a folder named by its version, which goes away
 * at the next Raycast update, and so does an nvm or fnm version folder at the next upgrade.
 */

/** The launcher's exit code when it finds no supported Node (sysexits' EX_UNAVAILABLE). */
export const NO_NODE_EXIT = 69;

/**
 * Where the launcher looks after OFFRUN_NODE and every `node` on PATH, as shell words (expanded
 * when it runs, so `$HOME` is the running user's). Homebrew (Apple silicon, Intel), the system's,
 * then the version managers' stable links: Volta's shim, nvm's `current` link
 * (NVM_SYMLINK_CURRENT), fnm's default alias (Linux and macOS folders), mise's and asdf's shims.
 */
export const NODE_PLACES: readonly string[] = [
  "/opt/homebrew/bin/node",
  "/usr/local/bin/node",
  "/usr/bin/node",
  '"$HOME/.volta/bin/node"',
  '"${NVM_DIR:-$HOME/.nvm}/current/bin/node"',
  '"${FNM_DIR:-$HOME/.local/share/fnm}/aliases/default/bin/node"',
  '"$HOME/Library/Application Support/fnm/aliases/default/bin/node"',
  '"$HOME/.fnm/aliases/default/bin/node"',
  '"$HOME/.local/share/mise/shims/node"',
  '"$HOME/.asdf/shims/node"',
];

/** ~/.offrun/bin/offrun and ~/.offrun/lib/offrun (the CLI package it runs). */
export function launcherPaths(env: NodeJS.ProcessEnv = process.env): { launcher: string; lib: string } {
  const home = offrunHome(env);
  return { launcher: path.join(home, "bin", "offrun"), lib: path.join(home, "lib", "offrun") };
}

/**
 * The folder of the CLI package by a name that outlives an upgrade. Homebrew installs into
 * `<prefix>/Cellar/<formula>/<version>/`, removed by the next `brew upgrade`, and links
 * `<prefix>/opt/<formula>` to the current one: a launcher naming the Cellar folder would break.
 */
export async function stablePackageDir(dir: string): Promise<string> {
  const cellar = /^(.*)\/Cellar\/([^/]+)\/[^/]+\/(.*)$/.exec(path.resolve(dir));
  if (!cellar) return dir;
  const [, prefix, formula, rest] = cellar as unknown as [string, string, string, string];
  const opt = path.join(prefix, "opt", formula, rest);
  const same = await Promise.all([fs.realpath(opt), fs.realpath(dir)]).then(
    ([a, b]) => a === b,
    () => false,
  );
  return same ? opt : dir;
}

/** A single-quoted sh word: nothing inside is expanded. */
function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * The launcher's text. `packageDir` holds bin/offrun.js; `places` replaces NODE_PLACES (tests use
 * folders of their own, since this machine's /usr/bin/node would be found otherwise).
 */
export function launcherScript(packageDir: string, places: readonly string[] = NODE_PLACES): string {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(packageDir)) {
    throw new OffrunError(
      "invalid_input",
      `The CLI's folder holds a control character: ${JSON.stringify(packageDir)}.`,
    );
  }
  const version = `${MIN_NODE.major}.${MIN_NODE.minor}`;
  const check = `const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > ${MIN_NODE.major} || (a === ${MIN_NODE.major} && b >= ${MIN_NODE.minor}) ? 0 : 1)`;
  return [
    "#!/bin/sh",
    "# offrun, written by Set Up Offrun (or `offrun setup`, `offrun companion install`). It names no",
    `# Node: each run takes the first Node ${version}+ of OFFRUN_NODE, PATH and the usual places, so a`,
    "# Node that moves (Raycast's own, an nvm version) breaks neither this command nor the login service.",
    `offrun_package=${shellQuote(packageDir)}`,
    "offrun_node=",
    "offrun_pick() {",
    '  [ -z "$offrun_node" ] && [ -n "$1" ] && [ -f "$1" ] && [ -x "$1" ] || return 0',
    `  "$1" -e ${shellQuote(check)} >/dev/null 2>&1 && offrun_node=$1`,
    "  return 0",
    "}",
    // A Node the user named and that does not run is an error to see, not one to pass over.
    'if [ -n "${OFFRUN_NODE:-}" ]; then',
    '  offrun_pick "$OFFRUN_NODE"',
    '  if [ -z "$offrun_node" ]; then',
    `    printf 'OFFRUN_NODE is %s, which is not Node.js ${version} or newer: point it at one, or unset it.\\n' "$OFFRUN_NODE" >&2`,
    `    exit ${NO_NODE_EXIT}`,
    "  fi",
    "fi",
    // Every PATH entry, not only the first `node`: an old Node first on PATH is passed over.
    "offrun_ifs=$IFS",
    "set -f",
    "IFS=:",
    "for offrun_dir in $PATH; do",
    '  IFS=$offrun_ifs; offrun_pick "${offrun_dir:-.}/node"',
    "done",
    "IFS=$offrun_ifs",
    "set +f",
    ...places.map((place) => `offrun_pick ${place}`),
    'if [ -z "$offrun_node" ]; then',
    // printf is built into sh: with no PATH at all, cat would not be found.
    `  printf '%s\\n' ${[
      `offrun needs Node.js ${version} or newer and found none (looked at OFFRUN_NODE, every node on PATH,`,
      "Homebrew's, /usr/local/bin, /usr/bin, Volta, nvm, fnm, mise and asdf).",
      "Install Node, then run offrun again:",
      `  ${NODE_INSTALL_COMMAND}        (macOS with Homebrew)`,
      `  ${NODE_DOWNLOAD_URL}   (the installer, macOS and Linux)`,
      `Or point OFFRUN_NODE at a Node ${version}+ binary.`,
    ]
      .map(shellQuote)
      .join(" ")} >&2`,
    `  exit ${NO_NODE_EXIT}`,
    "fi",
    // The companion with its Node flags (companion/node-flags.ts), as every other way starts it.
    'if [ "${1:-}" = companion ] && [ "${2:-}" = run ]; then',
    `  exec "$offrun_node" ${COMPANION_NODE_FLAGS.map(shellQuote).join(" ")} "$offrun_package/bin/offrun.js" "$@"`,
    "fi",
    'exec "$offrun_node" "$offrun_package/bin/offrun.js" "$@"',
    "",
  ].join("\n");
}

/** Writes the launcher (whole or not at all, mode 755) for the CLI in `packageDir`; returns its path. */
export async function writeLauncher(
  packageDir: string,
  env: NodeJS.ProcessEnv = process.env,
  places: readonly string[] = NODE_PLACES,
): Promise<string> {
  const { launcher } = launcherPaths(env);
  await fs.mkdir(path.dirname(launcher), { recursive: true });
  await replaceFile(launcher, Buffer.from(launcherScript(path.resolve(packageDir), places)), {
    mode: 0o755,
    fsync: true,
  });
  return launcher;
}
