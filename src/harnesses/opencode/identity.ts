import os from "node:os";
import type { LoginIdentity } from "../../core/foundation/login-model.js";
import { describeError } from "../../core/foundation/errors.js";
import type { ProcessRunner } from "../../core/foundation/runner.js";

/**
 * Who is signed in to an OpenCode home, from `opencode auth list` (an alias of `providers list`)
 * alone: it names each stored credential's provider and method, never the secret. Offrun never
 * opens auth.json itself.
 */

const LIST_TIMEOUT_MS = 15_000;

/**
 * What 1.18.33 prints (on stdout, with colour codes), one section per source:
 *   ┌  Credentials ~/.local/share/opencode/auth.json
 *   ●  OpenAI api
 *   └  1 credentials
 *   ┌  Environment
 *   ●  OpenAI OPENAI_API_KEY
 *   └  1 environment variable
 */
export function parseOpencodeAuthList(exitCode: number | undefined, output: string): LoginIdentity {
  // eslint-disable-next-line no-control-regex
  const lines = output.replace(/\u001b\[[0-9;]*m/g, "").split("\n");
  let section = "";
  const stored: string[] = [];
  const fromEnv: string[] = [];
  for (const raw of lines) {
    const line = raw.trim();
    const heading = /^┌\s+(\S+)/.exec(line);
    if (heading) section = heading[1] ?? "";
    const entry = /^●\s+(.+)$/.exec(line);
    if (!entry?.[1]) continue;
    // "OpenAI api" → "OpenAI (api)"; an environment entry names its variable, which is no secret.
    const words = entry[1].trim().split(/\s+/);
    const label = words.length > 1 ? `${words.slice(0, -1).join(" ")} (${words.at(-1)})` : entry[1].trim();
    (section === "Environment" ? fromEnv : stored).push(label);
  }
  if (stored.length > 0 || fromEnv.length > 0) return { signedIn: true, detail: [...stored, ...fromEnv].join(", ") };
  if (exitCode === 0 && /\b0 credentials\b/.test(output)) return { signedIn: false };
  const said = lines.join(" ").replace(/\s+/g, " ").trim().slice(0, 300);
  return {
    signedIn: undefined,
    note: `\`opencode auth list\` exited ${exitCode ?? "abnormally"}: ${said || "no output"}`,
  };
}

export async function opencodeIdentity(
  binary: string | undefined,
  env: NodeJS.ProcessEnv,
  home: string,
  runner: ProcessRunner,
): Promise<LoginIdentity> {
  if (!binary) return { signedIn: undefined, note: "OpenCode is not installed, so its login state is unknown." };
  try {
    const result = await runner.run(
      { file: binary, args: ["auth", "list"], cwd: os.tmpdir(), env: { ...env, NO_COLOR: "1" } },
      { timeoutMs: LIST_TIMEOUT_MS },
    );
    if (result.timedOut) {
      return { signedIn: undefined, note: `\`opencode auth list\` did not answer within 15 s (${home}).` };
    }
    return parseOpencodeAuthList(result.exitCode, `${result.stdout}\n${result.stderr}`);
  } catch (error) {
    return { signedIn: undefined, note: `Could not run ${binary}: ${describeError(error)}` };
  }
}
