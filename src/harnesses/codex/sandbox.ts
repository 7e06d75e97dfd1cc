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
  executable: (home) => ({
    files: ["config.toml", "hooks.json", "AGENTS.md", "AGENTS.override.md"].map((entry) => path.join(home, entry)),
    folders: ["rules", "prompts", "skills", "plugins"].map((entry) => path.join(home, entry)),
    blankFiles: [path.join(home, ".env")],
  }),
  configured: (home) => codexConfiguration(home),
  env: ["CODEX_*", "OPENAI_*", "AZURE_OPENAI_*", "RUST_LOG"],
};
