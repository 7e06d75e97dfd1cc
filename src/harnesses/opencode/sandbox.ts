import path from "node:path";
import { PROVIDER_VARIABLES } from "../shared/provider-env.js";
import type { HarnessSandbox } from "../types.js";

/** OpenCode 1.18.33 in a sandboxed turn (what it writes: docs/sandbox.md). */
export const opencodeSandbox: HarnessSandbox = {
  // Its model list comes from models.dev; it talks to whichever provider the login's config names.
  // The common ones are listed, a project adds others with sandbox.allowHosts.
  hosts: [
    "models.dev",
    "opencode.ai",
    "api.anthropic.com",
    "api.openai.com",
    "generativelanguage.googleapis.com",
    "openrouter.ai",
  ],
  // A login's home is OpenCode's XDG_DATA_HOME (the Default one is ~/.local/share, shared with
  // every other program): only its own folder there is written. Its config (plugins, agents,
  // commands, MCP servers) lives under XDG_CONFIG_HOME, outside that folder, so it stays read-only.
  state: (home) => [path.join(home, "opencode")],
  env: ["OPENCODE_*", ...PROVIDER_VARIABLES],
};
