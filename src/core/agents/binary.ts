import type { Harness } from "../../harnesses/types.js";
import { locateBinary } from "../foundation/binaries.js";
import { OffrunError } from "../foundation/errors.js";

/** The CLI's binary for an agent's turn, or not_installed saying how to install it. */
export async function requireAgentBinary(harness: Harness, env: NodeJS.ProcessEnv): Promise<string> {
  const binary = await locateBinary(harness.id, harness.binaryName, env);
  if (!binary) {
    throw new OffrunError(
      "not_installed",
      `${harness.displayName} (\`${harness.binaryName}\`) is not installed or not on PATH. Install it with \`${harness.installHint}\`, sign in once by running \`${harness.binaryName}\`, then try again.`,
    );
  }
  return binary;
}
