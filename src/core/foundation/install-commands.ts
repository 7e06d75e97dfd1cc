/**
 * How people get what Offrun needs, in one place: the faces' messages, Set Up Offrun's help, the
 * launcher's message and a remote host's doctor all name the same commands.
 */

/** The oldest Node the CLI runs on (package.json's engines). */
export const MIN_NODE = { major: 22, minor: 12 } as const;

/** What a user with no Node installs on macOS; the installer for every system is NODE_DOWNLOAD_URL. */
export const NODE_INSTALL_COMMAND = "brew install node";
export const NODE_DOWNLOAD_URL = "https://nodejs.org/en/download";

/** The npm package scripts/pack-cli.mjs makes (packaging/homebrew/offrun.rb installs the same one). */
export const CLI_INSTALL_COMMAND = "npm install -g offrun";

/**
 * The sandbox runtime the CLI is built against (package.json's exact dependency). The Raycast
 * extension leaves it out of the CLI it carries (docs/development.md says why); Set Up Offrun's
 * fix installs this version beside the installed copy.
 */
export const SANDBOX_RUNTIME = { name: "@anthropic-ai/sandbox-runtime", version: "0.0.83" } as const;

/**
 * For a machine reached over ssh: the npm package, or before it is on the registry, the tarball a
 * checkout packs, copied there.
 */
export const HOST_INSTALL_TEXT = `${CLI_INSTALL_COMMAND} (Node ${MIN_NODE.major}.${MIN_NODE.minor}+), or from a checkout: \`npm run pack:cli\`, copy pack/offrun-<version>.tgz to the host and run \`npm install -g ./offrun-<version>.tgz\` there`;
