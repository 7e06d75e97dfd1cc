import path from "node:path";
import type { HarnessSandbox } from "../types.js";
import { codexConfiguration } from "./config-hosts.js";

/** Codex 0.171.0 in a sandboxed turn (what it writes: docs/sandbox.md). */
export const codexSandbox: HarnessSandbox = {
  // The Responses API for an API key, chatgpt.com's backend for a ChatGPT sign-in, and
  // auth.openai.com for its token refresh.
  hosts: ["api.openai.com", "chatgpt.com", "auth.openai.com"],
  // Run by the next plain `codex`, outside any sandbox: config.toml (`notify`, MCP servers,
  // providers, profiles), hooks, exec-policy rules that pre-approve commands, prompts, skills,
  // plugins, and the user's own instructions. Its `.env`, which every start loads into Codex's
  // own environment and so into every process it starts (`LD_PRELOAD`, `OPENAI_BASE_URL`): made
  // empty when missing, so that it is held for the whole turn.
  // Found by the class check's trace of what an unsandboxed turn looks for
  // (test/e2e/sandbox-class.test.ts): its custom `agents/`, `environments.toml`, a `.git` in its
  // home (a repository there would bring its own config to the git Codex runs), and
  // `tmp/arg0-linux/`, where each Codex process makes the folder it puts first on its commands'
  // PATH (a `bwrap` or `getconf` planted in a running session's folder would run outside).
  executable: (home) => ({
    // `memories_v2_1.sqlite`: the memories 0.171.0 looks for at start, which later sessions read as
    // their own notes (one a turn makes is removed after it).
    files: [
      "config.toml",
      "hooks.json",
      "AGENTS.md",
      "AGENTS.override.md",
      "environments.toml",
      "memories_v2_1.sqlite",
    ].map((entry) => path.join(home, entry)),
    folders: ["rules", "prompts", "skills", "plugins", "agents", "tmp/arg0-linux"].map((entry) =>
      path.join(home, entry),
    ),
    blankFiles: [path.join(home, ".env")],
    placeholderFiles: [path.join(home, ".git")],
  }),
  configured: (home) => codexConfiguration(home),
  env: ["CODEX_*", "OPENAI_*", "AZURE_OPENAI_*", "RUST_LOG"],
};
