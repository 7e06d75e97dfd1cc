import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The pinned Codex CLI the tests run (installed by scripts/install-test-clis.mjs, git-ignored). */
export const CODEX_BIN = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../.test-clis/node_modules/.bin/codex",
);

/** A model slug Codex 0.171.0 has bundled metadata for (`codex debug models`), so it lists `apply_patch`. */
export const CODEX_TEST_MODEL = "gpt-5.5";

/** No analytics, no plugin or app fetches: nothing that would reach for the network in tests. */
const QUIET_CONFIG = ["[analytics]", "enabled = false", "", "[features]", "plugins = false", "apps = false", ""];

/**
 * Writes `$CODEX_HOME/config.toml` pointing Codex at the fake server. Retries are off so a 429
 * surfaces at once; analytics, plugins and apps are off so a run makes no other network calls.
 */
export async function prepareCodexHome(opts: { serverUrl: string; codexHome: string }): Promise<void> {
  await mkdir(opts.codexHome, { recursive: true });
  const baseUrl = `${opts.serverUrl.replace(/\/+$/, "")}/v1`;
  const config = [
    `model_provider = "fake"`,
    `model = "${CODEX_TEST_MODEL}"`,
    ``,
    `[model_providers.fake]`,
    `name = "fake"`,
    `base_url = "${baseUrl}"`,
    `wire_api = "responses"`,
    `env_key = "FAKE_API_KEY"`,
    `request_max_retries = 0`,
    `stream_max_retries = 0`,
    ``,
    ...QUIET_CONFIG,
  ].join("\n");
  await writeFile(path.join(opts.codexHome, "config.toml"), config);
}

/**
 * A Codex home with no login whose built-in OpenAI provider points at the fake server (use it
 * with `unauthorizedResponsesProtocol`). 0.171.0 does not refuse to run when logged out: it sends
 * the request without a key, so offline the only signal is the server's 401.
 */
export async function prepareLoggedOutCodexHome(opts: { serverUrl: string; codexHome: string }): Promise<void> {
  await mkdir(opts.codexHome, { recursive: true });
  const config = [
    `openai_base_url = "${opts.serverUrl.replace(/\/+$/, "")}/v1"`,
    `model = "${CODEX_TEST_MODEL}"`,
    ``,
    ...QUIET_CONFIG,
  ].join("\n");
  await writeFile(path.join(opts.codexHome, "config.toml"), config);
}

/**
 * The complete environment for a Codex end-to-end run: nothing from the developer's own
 * environment leaks in except PATH (Codex runs `git` and `bash`), so a real `~/.codex` or
 * `OPENAI_API_KEY` can never be used by a test.
 */
export function codexTestEnv(opts: { home: string; tmp: string; codexHome: string }): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    HOME: opts.home,
    TMPDIR: opts.tmp,
    CODEX_HOME: opts.codexHome,
    FAKE_API_KEY: "test",
    LANG: "C.UTF-8",
    NO_COLOR: "1",
  };
}
