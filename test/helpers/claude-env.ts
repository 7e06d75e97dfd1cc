import path from "node:path";
import { fileURLToPath } from "node:url";

/** The pinned Claude Code (2.1.332) that scripts/install-test-clis.mjs puts in .test-clis. */
export const CLAUDE_BIN = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../.test-clis/node_modules/.bin/claude",
);

/**
 * The whole environment for running the real `claude` against the fake server, built from
 * scratch so nothing from the developer's shell (a real key, a real config dir) leaks in.
 * `subscriber` makes the CLI act as a subscription login: it then reads the
 * anthropic-ratelimit-unified-* headers and emits rate_limit_event and limit texts.
 */
export function claudeTestEnv(opts: {
  serverUrl: string;
  home: string;
  tmp: string;
  configDir: string;
  subscriber?: boolean;
}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    // The CLI's folder first, so a locator that searches PATH finds the pinned `claude`.
    PATH: [path.dirname(CLAUDE_BIN), process.env.PATH ?? "/usr/bin:/bin"].join(path.delimiter),
    HOME: opts.home,
    TMPDIR: opts.tmp,
    CLAUDE_CONFIG_DIR: opts.configDir,
    ANTHROPIC_BASE_URL: opts.serverUrl,
    // Without it, 2.1.332 tries to reach Anthropic (and is slow with no network).
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    // Otherwise a 429 is retried for about 3 minutes before the turn ends.
    CLAUDE_CODE_MAX_RETRIES: "0",
  };
  // An API key wins over CLAUDE_CODE_OAUTH_TOKEN (2.1.332 then sends x-api-key and ignores the
  // unified rate-limit headers), so a subscriber run must not carry one. Any token value works.
  if (opts.subscriber) env.CLAUDE_CODE_OAUTH_TOKEN = "fake-oauth-token";
  else env.ANTHROPIC_API_KEY = "test";
  return env;
}
