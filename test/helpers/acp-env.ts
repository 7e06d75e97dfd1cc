import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { FAKE_MODEL } from "../fake-server/chat-completions.js";

/**
 * Homes and environments for running the pinned Gemini CLI and OpenCode as ACP agents against
 * the fake model server. Written for the ACP tests because test/helpers/gemini-env.ts and
 * opencode-env.ts did not exist yet; built from scratch so no real key or config leaks in.
 */

const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../.test-clis/node_modules/.bin");
export const GEMINI_BIN = path.join(BIN, "gemini");
export const OPENCODE_BIN = path.join(BIN, "opencode");

/** Without `-m`, 0.61.0 first asks a classifier model which model to use. */
export const GEMINI_ACP_ARGS = ["--acp", "-m", "gemini-2.5-flash"];
export const OPENCODE_ACP_ARGS = ["acp"];

function baseEnv(home: string, tmp: string): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, TMPDIR: tmp, LANG: "C.UTF-8", NO_COLOR: "1" };
}

/** `$GEMINI_CLI_HOME/.gemini/settings.json`: API-key auth, no telemetry, one attempt per request. */
export async function geminiAcpEnv(opts: { serverUrl: string; home: string; tmp: string }): Promise<NodeJS.ProcessEnv> {
  const cliHome = path.join(opts.home, "gemini-home");
  await mkdir(path.join(cliHome, ".gemini"), { recursive: true });
  const settings = {
    security: { auth: { selectedType: "gemini-api-key" }, folderTrust: { enabled: false } },
    privacy: { usageStatisticsEnabled: false },
    general: { maxAttempts: 1 },
  };
  await writeFile(path.join(cliHome, ".gemini", "settings.json"), JSON.stringify(settings));
  return {
    ...baseEnv(opts.home, opts.tmp),
    GEMINI_CLI_HOME: cliHome,
    GEMINI_API_KEY: "test",
    GOOGLE_GEMINI_BASE_URL: opts.serverUrl,
  };
}

/**
 * OpenCode's config through OPENCODE_CONFIG_CONTENT: one openai-compatible provider on the fake
 * server, and `edit`/`bash` set to "ask" so a write goes through session/request_permission.
 */
export function opencodeAcpEnv(opts: { serverUrl: string; home: string; tmp: string }): NodeJS.ProcessEnv {
  const config = {
    $schema: "https://opencode.ai/config.json",
    model: `fake/${FAKE_MODEL}`,
    small_model: `fake/${FAKE_MODEL}`,
    autoupdate: false,
    share: "disabled",
    permission: { edit: "ask", bash: "ask" },
    provider: {
      fake: {
        npm: "@ai-sdk/openai-compatible",
        name: "Fake",
        options: { baseURL: `${opts.serverUrl}/v1`, apiKey: "test" },
        models: { [FAKE_MODEL]: { name: "Fake model", tool_call: true } },
      },
    },
  };
  return {
    ...baseEnv(opts.home, opts.tmp),
    XDG_DATA_HOME: path.join(opts.home, "data"),
    XDG_CONFIG_HOME: path.join(opts.home, "config"),
    XDG_CACHE_HOME: path.join(opts.home, "cache"),
    XDG_STATE_HOME: path.join(opts.home, "state"),
    OPENCODE_CONFIG_CONTENT: JSON.stringify(config),
    OPENCODE_DISABLE_AUTOUPDATE: "1",
    OPENCODE_DISABLE_MODELS_FETCH: "1",
    OPENCODE_DISABLE_SHARE: "1",
  };
}
