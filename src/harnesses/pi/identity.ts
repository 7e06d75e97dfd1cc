import os from "node:os";
import type { LoginIdentity } from "../../core/foundation/login-model.js";
import { describeError } from "../../core/foundation/errors.js";
import type { ProcessRunner } from "../../core/foundation/runner.js";

/**
 * Who is signed in to a Pi home. Pi 0.73.1 has no status command; `pi --list-models` lists the
 * models of every provider it has a credential for (auth.json, an API key variable, or a
 * models.json provider), so the providers in that table are the login. No secret is printed,
 * and Offrun never opens auth.json itself.
 */

const LIST_TIMEOUT_MS = 20_000;

/**
 * What 0.73.1 prints: a table `provider  model  context  max-out  thinking  images` with one
 * row per model, or, with no credential at all, "No models available. Use /login to log into a
 * provider via OAuth or API key. …".
 */
export function parsePiModelList(exitCode: number | undefined, output: string): LoginIdentity {
  if (/No models available/i.test(output)) return { signedIn: false };
  const lines = output.split("\n").map((l) => l.trim());
  const header = lines.findIndex((l) => /^provider\s+model\b/.test(l));
  if (exitCode === 0 && header >= 0) {
    const providers = new Set<string>();
    for (const line of lines.slice(header + 1)) {
      const provider = /^(\S+)\s+\S+/.exec(line)?.[1];
      if (provider) providers.add(provider);
    }
    if (providers.size > 0) return { signedIn: true, detail: [...providers].join(", ") };
  }
  const said = lines.join(" ").replace(/\s+/g, " ").trim().slice(0, 300);
  return {
    signedIn: undefined,
    note: `\`pi --list-models\` exited ${exitCode ?? "abnormally"}: ${said || "no output"}`,
  };
}

export async function piIdentity(
  binary: string | undefined,
  env: NodeJS.ProcessEnv,
  home: string,
  runner: ProcessRunner,
): Promise<LoginIdentity> {
  if (!binary) return { signedIn: undefined, note: "Pi is not installed, so its login state is unknown." };
  try {
    const result = await runner.run(
      // PI_OFFLINE: no update check or package fetch at start-up.
      { file: binary, args: ["--list-models"], cwd: os.tmpdir(), env: { ...env, PI_OFFLINE: "1", NO_COLOR: "1" } },
      { timeoutMs: LIST_TIMEOUT_MS },
    );
    if (result.timedOut)
      return { signedIn: undefined, note: `\`pi --list-models\` did not answer within 20 s (${home}).` };
    return parsePiModelList(result.exitCode, `${result.stdout}\n${result.stderr}`);
  } catch (error) {
    return { signedIn: undefined, note: `Could not run ${binary}: ${describeError(error)}` };
  }
}
