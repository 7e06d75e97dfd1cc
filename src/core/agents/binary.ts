import type { Harness } from "../../harnesses/types.js";
import { locateBinary } from "../foundation/binaries.js";
import { OffrunError } from "../foundation/errors.js";

/**
 * The CLI's binary for an agent's turn or a review, or not_installed saying how to install it.
 * `purpose` names what it was for, and `then` what to do after installing (or instead).
 */
export async function requireAgentBinary(
  harness: Harness,
  env: NodeJS.ProcessEnv,
  wording: { purpose?: string; then?: string } = {},
): Promise<string> {
  const binary = await locateBinary(harness.id, harness.binaryName, env);
  if (binary) return binary;
  const then = wording.then ?? `, sign in once by running \`${harness.binaryName}\`, then try again`;
  throw new OffrunError(
    "not_installed",
    `${harness.displayName} (\`${harness.binaryName}\`) is not installed or not on PATH${wording.purpose ?? ""}. Install it with \`${harness.installHint}\`${then}.`,
  );
}
