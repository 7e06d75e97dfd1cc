import fs from "node:fs/promises";
import path from "node:path";
import { urlHost } from "../../core/foundation/urls.js";

/**
 * The hosts a login's config.toml points Codex at: a provider's `base_url` and the top-level
 * `openai_base_url` (0.171.0). A sandboxed turn may reach them; the file holds no secret (keys
 * come from the variable its `env_key` names).
 */
export async function codexConfiguredHosts(home: string): Promise<string[]> {
  const text = await fs.readFile(path.join(home, "config.toml"), "utf8").catch(() => "");
  const hosts: string[] = [];
  for (const match of text.matchAll(/^\s*(?:openai_)?base_url\s*=\s*"([^"]+)"/gm)) {
    const host = urlHost(match[1]!);
    if (host) hosts.push(host);
  }
  return hosts;
}
