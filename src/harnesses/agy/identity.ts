import type { LoginIdentity } from "../../core/foundation/login-model.js";
import type { ProcessRunner } from "../../core/foundation/runner.js";

/**
 * Whether a home is signed in, from `agy models`: it lists the models the account may use
 * ("Fetching available models..." then one `id\tName` per line; 1.1.x prints the tab as the two
 * characters `\t`) and exits non-zero with "please sign in" or "not authenticated" when signed out.
 * It reads the sign-in agy keeps (the OS keyring); Offrun never opens it. The email is not printed.
 */
const SIGNED_OUT = /please sign in|not authenticated|authentication required|login required/i;

export async function agyIdentity(
  binary: string | undefined,
  env: NodeJS.ProcessEnv,
  _home: string,
  runner: ProcessRunner,
): Promise<LoginIdentity> {
  if (!binary) return { signedIn: undefined, note: "agy is not installed." };
  const result = await runner
    .run({ file: binary, args: ["models"], env }, { timeoutMs: 20_000 })
    .catch(() => undefined);
  if (!result || result.timedOut) return { signedIn: undefined, note: "`agy models` did not answer." };
  const output = `${result.stdout}\n${result.stderr}`;
  if (SIGNED_OUT.test(output)) {
    return {
      signedIn: false,
      note: "`agy models` says this login is not signed in: run `agy` and sign in with Google.",
    };
  }
  if (result.exitCode !== 0) {
    return { signedIn: undefined, note: `\`agy models\` failed: ${output.trim().split("\n").slice(-1)[0] ?? ""}` };
  }
  const models = result.stdout.split("\n").filter((l) => /\\t|\t/.test(l)).length;
  return { signedIn: true, detail: `Google sign-in, ${models} model${models === 1 ? "" : "s"} available` };
}
