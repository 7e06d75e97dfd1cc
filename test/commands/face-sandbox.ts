import path from "node:path";
import { rememberProject } from "../../src/core/foundation/project.js";
import { makeRepo, makeSandbox, OFFRUN_BIN, type Sandbox } from "../helpers/offrun.js";
import { runtime } from "../helpers/raycast-api.js";
import { fixture, writeStubCli } from "../helpers/stub-cli.js";

/**
 * Real core state for rendering a command: a sandbox (HOME, TMPDIR, OFFRUN_HOME) put into this
 * process's environment (the commands read process.env, as in Raycast), a real git project that
 * Offrun knows, and Claude Code stood in for by a stub that replays a recorded turn.
 */
export interface FaceSandbox {
  box: Sandbox;
  repo: string;
  claudeStub: string;
  cleanup(): Promise<void>;
}

const KEYS = [
  "HOME",
  "TMPDIR",
  "OFFRUN_HOME",
  "GIT_CONFIG_GLOBAL",
  "GIT_CONFIG_NOSYSTEM",
  "OFFRUN_CLAUDE_BIN",
  "OFFRUN_NO_LOGIN_SERVICE",
] as const;

export async function makeFaceSandbox(
  options: { files?: Record<string, string>; /** false: a first use, no project known yet. */ known?: boolean } = {},
): Promise<FaceSandbox> {
  const box = await makeSandbox("offrun-face-");
  const saved = Object.fromEntries(KEYS.map((k) => [k, process.env[k]]));
  const claudeStub = await writeStubCli(path.join(box.dir, "stub", "claude"), {
    replay: fixture("claude", "2.1.332", "text-reply"),
  });
  for (const key of KEYS) {
    // Start Companion must not install a real login service from a test.
    const value = key === "OFFRUN_CLAUDE_BIN" ? claudeStub : key === "OFFRUN_NO_LOGIN_SERVICE" ? "1" : box.env[key];
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  const repo = await makeRepo(path.join(box.dir, "demo"), box.env, options.files);
  if (options.known !== false) await rememberProject(repo);
  runtime.reset();
  runtime.preferences = { offrunPath: OFFRUN_BIN, claudePath: claudeStub };
  return {
    box,
    repo,
    claudeStub,
    cleanup: async () => {
      await box.cleanup();
      for (const key of KEYS) {
        if (saved[key] === undefined) delete process.env[key];
        else process.env[key] = saved[key];
      }
    },
  };
}
