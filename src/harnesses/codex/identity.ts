import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { LoginIdentity } from "../../core/foundation/login-model.js";
import { describeError } from "../../core/foundation/errors.js";
import type { ProcessRunner } from "../../core/foundation/runner.js";

/**
 * Who is signed in to a Codex home, from `codex login status` alone: Codex keeps the account's
 * email only inside auth.json (in its id token), which Offrun never opens.
 */

const STATUS_TIMEOUT_MS = 10_000;

/**
 * What 0.171.0 prints, all of it on stderr, after any "WARNING: ..." lines:
 *   exit 0  "Logged in using ChatGPT"
 *   exit 0  "API key configured - sk-test-***bcdef" + "Authentication is checked when you send a request."
 *           (older builds: "Logged in using an API key - ...")
 *   exit 1  "Not logged in"
 *   exit 1  "Error loading configuration: CODEX_HOME points to ..., but that path does not exist"
 */
export function parseCodexLoginStatus(exitCode: number | undefined, output: string): LoginIdentity {
  const lines = output
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("WARNING:"));
  const chatgpt = lines.find((line) => /^Logged in using ChatGPT/i.test(line));
  if (chatgpt) return { signedIn: true, detail: "ChatGPT" };
  // The masked key is left out on purpose: Offrun shows no part of a key.
  if (lines.some((line) => /^API key configured|^Logged in using an API key/i.test(line))) {
    return { signedIn: true, detail: "API key" };
  }
  if (lines.some((line) => /^Not logged in/i.test(line))) return { signedIn: false };
  const said = lines.join(" ").slice(0, 300);
  if (exitCode === 0) return { signedIn: true, ...(said ? { detail: said } : {}) };
  return {
    signedIn: undefined,
    note: `\`codex login status\` exited ${exitCode ?? "abnormally"}: ${said || "no output"}`,
  };
}

/**
 * The API-key variable the home's config.toml names for its provider (`model_provider = "x"` and
 * `[model_providers.x] env_key = "VAR"`), read as text: Codex then authenticates from that
 * variable, and `codex login status` (which knows only auth.json) says "Not logged in" all the same.
 */
export async function providerKeyVariable(home: string): Promise<{ provider: string; variable: string } | undefined> {
  let text: string;
  try {
    text = await fs.readFile(path.join(home, "config.toml"), "utf8");
  } catch {
    return undefined;
  }
  const top = text.split(/^\s*\[/m)[0] ?? "";
  const provider = /^\s*model_provider\s*=\s*["']([^"']+)["']/m.exec(top)?.[1];
  if (!provider) return undefined;
  const escaped = provider.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const table = new RegExp(
    `^\\s*\\[model_providers\\.(?:"${escaped}"|${escaped})\\]\\s*$([\\s\\S]*?)(?=^\\s*\\[|(?![\\s\\S]))`,
    "m",
  ).exec(text)?.[1];
  const variable = table && /^\s*env_key\s*=\s*["']([^"']+)["']/m.exec(table)?.[1];
  return variable ? { provider, variable } : undefined;
}

export async function codexIdentity(
  binary: string | undefined,
  env: NodeJS.ProcessEnv,
  home: string,
  runner: ProcessRunner,
): Promise<LoginIdentity> {
  if (!binary) return { signedIn: undefined, note: "Codex is not installed, so its login state is unknown." };
  // 0.171.0 refuses to start when CODEX_HOME names a missing folder: that home has no login.
  if (
    env.CODEX_HOME &&
    !(await fs.stat(env.CODEX_HOME).then(
      (s) => s.isDirectory(),
      () => false,
    ))
  ) {
    return { signedIn: false, note: `${home} does not exist yet.` };
  }
  try {
    const result = await runner.run(
      { file: binary, args: ["login", "status"], cwd: os.tmpdir(), env: { ...env, NO_COLOR: "1" } },
      { timeoutMs: STATUS_TIMEOUT_MS },
    );
    if (result.timedOut) {
      return { signedIn: undefined, note: `\`codex login status\` did not answer within 10 s (${home}).` };
    }
    const identity = parseCodexLoginStatus(result.exitCode, `${result.stdout}\n${result.stderr}`);
    if (identity.signedIn !== false) return identity;
    // "Not logged in" speaks of auth.json only: a provider that takes its key from a variable can
    // still run, so that is not a definite "signed out".
    const keyed = await providerKeyVariable(home);
    if (!keyed) return identity;
    return {
      signedIn: undefined,
      detail: `provider ${keyed.provider}, key from ${keyed.variable}`,
      note: env[keyed.variable]
        ? `authenticates with ${keyed.variable} (config.toml), which \`codex login status\` does not check`
        : `config.toml takes the key from ${keyed.variable}, which is not set in Offrun's environment`,
    };
  } catch (error) {
    return { signedIn: undefined, note: `Could not run ${binary}: ${describeError(error)}` };
  }
}
