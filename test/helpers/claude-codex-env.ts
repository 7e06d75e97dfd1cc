import path from "node:path";
import { CLAUDE_BIN, claudeTestEnv } from "./claude-env.js";
import { CODEX_BIN, codexTestEnv, prepareCodexHome } from "./codex-env.js";
import type { Sandbox } from "./offrun.js";

/**
 * One environment where `offrun` drives both the real Claude Code and the real Codex, each against
 * its own fake server, in the sandbox's home (what handoff tests need: one agent, two CLIs).
 */
export async function claudeCodexEnv(box: Sandbox, claudeUrl: string, codexUrl: string): Promise<NodeJS.ProcessEnv> {
  const codexHome = path.join(box.home, ".codex");
  await prepareCodexHome({ serverUrl: codexUrl, codexHome });
  return {
    ...codexTestEnv({ home: box.home, tmp: box.tmp, codexHome }),
    ...claudeTestEnv({ serverUrl: claudeUrl, home: box.home, tmp: box.tmp, configDir: path.join(box.home, ".claude") }),
    OFFRUN_HOME: box.offrunHome,
    GIT_CONFIG_GLOBAL: box.env.GIT_CONFIG_GLOBAL,
    OFFRUN_CLAUDE_BIN: CLAUDE_BIN,
    OFFRUN_CODEX_BIN: CODEX_BIN,
  };
}
