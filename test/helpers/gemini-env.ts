import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { geminiProtocol } from "../fake-server/gemini.js";
import { startFakeServer } from "../fake-server/server.js";
import { makeWorld, type World } from "./e2e.js";

/** The pinned Gemini CLI (0.61.0) that scripts/install-test-clis.mjs puts in .test-clis. */
export const GEMINI_BIN = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../.test-clis/node_modules/.bin/gemini",
);

/** A model 0.61.0 knows; without `-m` the CLI first asks a classifier model which one to use. */
export const GEMINI_TEST_MODEL = "gemini-2.5-flash";

/**
 * Writes `$GEMINI_CLI_HOME/.gemini/settings.json` as docs/harnesses/gemini.md ("Against the fake
 * server") describes: API-key auth (which the fake server accepts), no usage statistics, one attempt
 * per request so a 429 surfaces at once.
 * `auth: false` leaves the auth type out: 0.61.0 then refuses to run ("Invalid auth method selected.").
 */
export async function prepareGeminiHome(opts: { geminiHome: string; auth?: boolean }): Promise<void> {
  const dir = path.join(opts.geminiHome, ".gemini");
  await mkdir(dir, { recursive: true });
  const settings = {
    ...(opts.auth === false ? {} : { security: { auth: { selectedType: "gemini-api-key" } } }),
    privacy: { usageStatisticsEnabled: false },
    general: { maxAttempts: 1 },
  };
  await writeFile(path.join(dir, "settings.json"), `${JSON.stringify(settings, null, 2)}\n`);
}

/**
 * The complete environment for running the real `gemini` against the fake server, built from
 * scratch so nothing from the developer's shell (a real key, a real ~/.gemini) leaks in.
 * `loggedIn: false` leaves GEMINI_API_KEY out.
 */
export function geminiTestEnv(opts: {
  serverUrl: string;
  home: string;
  tmp: string;
  geminiHome: string;
  loggedIn?: boolean;
}): NodeJS.ProcessEnv {
  return {
    PATH: [path.dirname(GEMINI_BIN), process.env.PATH ?? "/usr/bin:/bin"].join(path.delimiter),
    HOME: opts.home,
    TMPDIR: opts.tmp,
    GEMINI_CLI_HOME: opts.geminiHome,
    GOOGLE_GEMINI_BASE_URL: opts.serverUrl,
    ...(opts.loggedIn === false ? {} : { GEMINI_API_KEY: "test" }),
    LANG: "C.UTF-8",
    NO_COLOR: "1",
  };
}

/**
 * One end-to-end setting for Gemini CLI on its Default login (GEMINI_CLI_HOME unset, so its home
 * is HOME and its state ~/.gemini), in a repository the user trusted in Offrun (Gemini CLI runs
 * only in a folder it trusts).
 */
export async function geminiDefaultWorld(prefix: string, files?: Record<string, string>): Promise<World> {
  const world = await makeWorld(prefix, files, await startFakeServer([geminiProtocol]), async (server, box) => {
    await prepareGeminiHome({ geminiHome: box.home });
    const env = geminiTestEnv({ serverUrl: server.url, home: box.home, tmp: box.tmp, geminiHome: box.home });
    delete env.GEMINI_CLI_HOME;
    return { ...env, OFFRUN_GEMINI_BIN: GEMINI_BIN };
  });
  const trusted = await world.offrun(["trust", "--yes"]);
  if (trusted.exitCode !== 0) throw new Error(`offrun trust failed: ${trusted.stderr}`);
  return {
    ...world,
    close: async () => {
      await world.offrun(["companion", "stop"]).catch(() => undefined);
      await world.close();
    },
  };
}
