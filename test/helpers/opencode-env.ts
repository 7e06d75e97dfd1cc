import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chatCompletionsProtocol, FAKE_MODEL } from "../fake-server/chat-completions.js";
import { startFakeServer } from "../fake-server/server.js";
import { makeWorld, type World } from "./e2e.js";

/** The pinned OpenCode (1.18.33) that scripts/install-test-clis.mjs puts in .test-clis. */
export const OPENCODE_BIN = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../.test-clis/node_modules/.bin/opencode",
);

/**
 * OpenCode retries a 429 five times after the first try (6 requests), waiting what `retry-after`
 * says, and no setting turns that off in 1.18.33: a test that wants a turn to fail on a 429
 * scripts this many rate_limit steps with retryAfterSeconds 0.
 */
export const OPENCODE_REQUESTS_PER_429 = 6;

/** Where the test homes keep OpenCode's data and config (the XDG folders it reads). */
export function opencodeDirs(home: string): { dataHome: string; configHome: string } {
  return { dataHome: path.join(home, ".local", "share"), configHome: path.join(home, ".config") };
}

/**
 * Writes `$XDG_CONFIG_HOME/opencode/opencode.json`: a provider `fake` through
 * `@ai-sdk/openai-compatible` (bundled in the binary: nothing is installed) at the fake server,
 * as the default model and the small model (the title request uses the small one).
 */
export async function prepareOpencodeHome(opts: { serverUrl: string; configHome: string }): Promise<void> {
  const dir = path.join(opts.configHome, "opencode");
  await mkdir(dir, { recursive: true });
  const config = {
    $schema: "https://opencode.ai/config.json",
    provider: {
      fake: {
        npm: "@ai-sdk/openai-compatible",
        name: "Fake",
        options: { baseURL: `${opts.serverUrl.replace(/\/+$/, "")}/v1`, apiKey: "test" },
        models: { [FAKE_MODEL]: { name: "Fake Model" } },
      },
    },
    model: `fake/${FAKE_MODEL}`,
    small_model: `fake/${FAKE_MODEL}`,
    autoupdate: false,
    share: "disabled",
  };
  await writeFile(path.join(dir, "opencode.json"), `${JSON.stringify(config, null, 2)}\n`);
}

/** The whole environment for the real `opencode` in a test: nothing of the developer's leaks in but PATH. */
export function opencodeTestEnv(opts: { home: string; tmp: string }): NodeJS.ProcessEnv {
  const { dataHome, configHome } = opencodeDirs(opts.home);
  return {
    PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    HOME: opts.home,
    TMPDIR: opts.tmp,
    XDG_DATA_HOME: dataHome,
    XDG_CONFIG_HOME: configHome,
    OPENCODE_DISABLE_AUTOUPDATE: "1",
    OPENCODE_DISABLE_MODELS_FETCH: "1",
    OPENCODE_DISABLE_SHARE: "1",
    LANG: "C.UTF-8",
    NO_COLOR: "1",
  };
}

/** One end-to-end setting for OpenCode: fake server, sandbox, repository, env with OFFRUN_OPENCODE_BIN. */
export type OpencodeWorld = World;

export async function opencodeWorld(prefix: string, files?: Record<string, string>): Promise<OpencodeWorld> {
  return makeWorld(prefix, files, await startFakeServer([chatCompletionsProtocol]), async (server, box) => {
    await prepareOpencodeHome({ serverUrl: server.url, configHome: opencodeDirs(box.home).configHome });
    return { ...opencodeTestEnv({ home: box.home, tmp: box.tmp }), OFFRUN_OPENCODE_BIN: OPENCODE_BIN };
  });
}
