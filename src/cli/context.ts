import path from "node:path";
import { ensureCompanion, type CompanionClient } from "../core/companion/client.js";
import { packageRoot } from "./output.js";

/** Connects to the companion, starting it (detached) with this very CLI when it is down. */
export function companion(): Promise<CompanionClient> {
  return ensureCompanion({
    file: process.execPath,
    args: [path.join(packageRoot, "bin", "offrun.js"), "companion", "run"],
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
