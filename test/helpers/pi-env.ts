import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chatCompletionsProtocol, FAKE_MODEL } from "../fake-server/chat-completions.js";
import { startFakeServer } from "../fake-server/server.js";
import { makeWorld, type World } from "./e2e.js";

/** The pinned Pi (0.73.1) that scripts/install-test-clis.mjs puts in .test-clis. */
export const PI_BIN = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../.test-clis/node_modules/.bin/pi",
);

/**
 * Writes a Pi home: `models.json` with a provider `fake` (api "openai-completions") at the fake
 * server, and `settings.json` making it the default model and turning retries off. Without that,
 * 0.73.1 retries a 429 twice inside the OpenAI SDK and then three more times itself
 * (auto_retry_start, 2 s, 4 s, 8 s): nine requests and about 15 s for one rate limit.
 */
export async function preparePiHome(opts: { serverUrl: string; agentDir: string }): Promise<void> {
  await mkdir(opts.agentDir, { recursive: true });
  const models = {
    providers: {
      fake: {
        baseUrl: `${opts.serverUrl.replace(/\/+$/, "")}/v1`,
        api: "openai-completions",
        apiKey: "test",
        models: [{ id: FAKE_MODEL }],
      },
    },
  };
  const settings = {
    defaultProvider: "fake",
    defaultModel: FAKE_MODEL,
    retry: { enabled: false, provider: { maxRetries: 0 } },
  };
  await writeFile(path.join(opts.agentDir, "models.json"), `${JSON.stringify(models, null, 2)}\n`);
  await writeFile(path.join(opts.agentDir, "settings.json"), `${JSON.stringify(settings, null, 2)}\n`);
}

/** The whole environment for the real `pi` in a test: nothing of the developer's leaks in but PATH. */
export function piTestEnv(opts: { home: string; tmp: string; agentDir: string }): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    HOME: opts.home,
    TMPDIR: opts.tmp,
    PI_CODING_AGENT_DIR: opts.agentDir,
    // No update check or package fetch at start-up.
    PI_OFFLINE: "1",
    LANG: "C.UTF-8",
    NO_COLOR: "1",
  };
}

/** One end-to-end setting for Pi: fake server, sandbox, repository, env with OFFRUN_PI_BIN. */
export type PiWorld = World;

export async function piWorld(prefix: string, files?: Record<string, string>): Promise<PiWorld> {
  return makeWorld(prefix, files, await startFakeServer([chatCompletionsProtocol]), async (server, box) => {
    const agentDir = path.join(box.home, ".pi", "agent");
    await preparePiHome({ serverUrl: server.url, agentDir });
    return { ...piTestEnv({ home: box.home, tmp: box.tmp, agentDir }), OFFRUN_PI_BIN: PI_BIN };
  });
}
