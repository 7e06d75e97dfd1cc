import fs from "node:fs/promises";
import path from "node:path";
import { hostsOfUrlVariables } from "../../core/foundation/urls.js";
import type { LoginConfiguration } from "../types.js";

/** Where Claude Code reads the settings an administrator manages (they win over the user's). */
const MANAGED_SETTINGS =
  process.platform === "darwin"
    ? "/Library/Application Support/ClaudeCode/managed-settings.json"
    : "/etc/claude-code/managed-settings.json";

/**
 * The gateways a login's Claude Code settings name: the `env` block of its `settings.json` (as
 * users set `ANTHROPIC_BASE_URL` per login) and of the managed settings. The worktree's
 * `.claude/settings*.json`, which the repository or a previous turn could have written, are read
 * too, and what they name is marked as the repository's: it opens nothing. The login's own file is
 * read-only inside the sandbox, so a turn cannot widen the next one's list.
 */
export async function claudeConfiguration(home: string, worktree: string): Promise<LoginConfiguration> {
  const found: LoginConfiguration = { hosts: [], env: [] };
  const own = [path.join(home, "settings.json"), MANAGED_SETTINGS];
  const repository = [
    path.join(worktree, ".claude", "settings.json"),
    path.join(worktree, ".claude", "settings.local.json"),
  ];
  for (const file of [...own, ...repository]) {
    const env = settingsEnv(await fs.readFile(file, "utf8").catch(() => undefined));
    for (const { name, host } of hostsOfUrlVariables(env)) {
      found.hosts.push({
        host,
        setting: `${file} env.${name}`,
        ...(repository.includes(file) ? { repository: true } : {}),
      });
    }
  }
  return found;
}

function settingsEnv(text: string | undefined): Record<string, string> {
  if (text === undefined) return {};
  try {
    const parsed = JSON.parse(text) as { env?: unknown };
    if (!parsed.env || typeof parsed.env !== "object") return {};
    return Object.fromEntries(
      Object.entries(parsed.env as Record<string, unknown>).filter(
        (entry): entry is [string, string] => typeof entry[1] === "string",
      ),
    );
  } catch {
    return {}; // Claude Code says itself what is wrong with its settings when it starts
  }
}
