import fs from "node:fs/promises";
import path from "node:path";
import { urlHost } from "../../core/foundation/urls.js";
import type { LoginConfiguration } from "../types.js";

/**
 * What a login's config.toml points Codex at (0.171.0): the hosts of each provider's `base_url`
 * and of the top-level `openai_base_url`, and the variables its providers' `env_key` name (where
 * the key comes from: the file holds no secret). Read by the companion before a sandboxed turn;
 * the turn itself cannot change the file (it is executable configuration, read-only inside).
 */
export async function codexConfiguration(home: string): Promise<LoginConfiguration> {
  const text = await fs.readFile(path.join(home, "config.toml"), "utf8").catch(() => "");
  const found: LoginConfiguration = { hosts: [], env: [] };
  let table = "";
  for (const line of text.split("\n")) {
    const header = /^\s*\[\s*([^\]]+?)\s*\]\s*(?:#.*)?$/.exec(line);
    if (header) {
      table = header[1]!;
      continue;
    }
    const entry = /^\s*((?:openai_)?base_url|env_key)\s*=\s*"([^"]+)"/.exec(line);
    if (!entry) continue;
    const [, key, value] = entry as unknown as [string, string, string];
    if (key === "env_key") {
      found.env.push(value);
      continue;
    }
    const host = urlHost(value);
    if (host)
      found.hosts.push({ host, setting: `${path.join(home, "config.toml")} ${table ? `${table}.` : ""}${key}` });
  }
  return found;
}
