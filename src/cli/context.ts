import path from "node:path";
import { ensureCompanion, type CompanionClient } from "../core/protocol/client.js";
import { isOffrunError } from "../core/foundation/errors.js";
import { packageRoot } from "./output.js";
import { COMPANION_NODE_FLAGS } from "../core/companion/node-flags.js";

/** Connects to the companion, starting it (detached) with this very CLI when it is down. */
export function companion(): Promise<CompanionClient> {
  return ensureCompanion({
    file: process.execPath,
    args: [...COMPANION_NODE_FLAGS, path.join(packageRoot, "bin", "offrun.js"), "companion", "run"],
  });
}

export async function withCompanion<T>(fn: (client: CompanionClient) => Promise<T>): Promise<T> {
  const client = await companion();
  try {
    return await fn(client);
  } finally {
    client.close();
  }
}

/**
 * A change to an agent or a login goes through the companion, which holds the same locks as the
 * turns it runs; the CLI does it by itself (under the files' own locks) only when the companion
 * cannot be started.
 */
export async function throughCompanion<T>(
  call: (client: CompanionClient) => Promise<T>,
  alone: () => Promise<T>,
): Promise<T> {
  return withCompanion(call).catch((error: unknown) => {
    if (isOffrunError(error, "companion_unavailable")) return alone();
    throw error;
  });
}
