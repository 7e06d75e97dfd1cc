import path from "node:path";
import { anthropicProtocol } from "../fake-server/anthropic.js";
import { responsesProtocol } from "../fake-server/openai-responses.js";
import { startFakeServer, type FakeServer } from "../fake-server/server.js";
import { CLAUDE_BIN, claudeTestEnv } from "./claude-env.js";
import { CODEX_BIN, codexTestEnv, prepareCodexHome } from "./codex-env.js";
import { makeRepo, makeSandbox, runOffrun, type OffrunResult, type Sandbox } from "./offrun.js";

/** One end-to-end setting: a fake model server, a sandbox, a repository and the env to run offrun in. */
export interface World {
  server: FakeServer;
  box: Sandbox;
  repo: string;
  env: NodeJS.ProcessEnv;
  offrun(args: string[], options?: { env?: NodeJS.ProcessEnv; cwd?: string }): Promise<OffrunResult>;
  close(): Promise<void>;
}

/** A world for one CLI: `harnessEnv` prepares the CLI's home in the sandbox and gives its environment. */
export async function makeWorld(
  prefix: string,
  files: Record<string, string> | undefined,
  server: FakeServer,
  harnessEnv: (server: FakeServer, box: Sandbox) => Promise<NodeJS.ProcessEnv>,
): Promise<World> {
  const box = await makeSandbox(prefix);
  const repo = await makeRepo(path.join(box.dir, "repo"), box.env, files);
  const env: NodeJS.ProcessEnv = {
    ...(await harnessEnv(server, box)),
    OFFRUN_HOME: box.offrunHome,
    GIT_CONFIG_GLOBAL: box.env.GIT_CONFIG_GLOBAL,
    GIT_CONFIG_NOSYSTEM: "1",
  };
  return {
    server,
    box,
    repo,
    env,
    offrun: (args, options = {}) => runOffrun(args, { env: { ...env, ...options.env }, cwd: options.cwd ?? repo }),
    close: async () => {
      await box.cleanup();
      await server.close();
    },
  };
}

/** The real Claude Code CLI against the fake Anthropic server. */
export async function claudeWorld(
  prefix: string,
  files?: Record<string, string>,
  /** subscriber: the CLI signs in as a subscription (limits read as the 5-hour window's). */
  options: { subscriber?: boolean } = {},
): Promise<World> {
  const server = await startFakeServer([anthropicProtocol]);
  return makeWorld(prefix, files, server, async (s, box) => ({
    ...claudeTestEnv({
      serverUrl: s.url,
      home: box.home,
      tmp: box.tmp,
      configDir: path.join(box.home, ".claude"),
      ...(options.subscriber ? { subscriber: true } : {}),
    }),
    OFFRUN_CLAUDE_BIN: CLAUDE_BIN,
  }));
}

/** The real Codex CLI against the fake Responses server. */
export async function codexWorld(prefix: string, files?: Record<string, string>): Promise<World> {
  const server = await startFakeServer([responsesProtocol]);
  return makeWorld(prefix, files, server, async (s, box) => {
    const codexHome = path.join(box.home, ".codex");
    await prepareCodexHome({ serverUrl: s.url, codexHome });
    return { ...codexTestEnv({ home: box.home, tmp: box.tmp, codexHome }), OFFRUN_CODEX_BIN: CODEX_BIN };
  });
}
