import { CompanionClient, ensureCompanion } from "../../core/companion/client.js";
import { isOffrunError } from "../../core/foundation/errors.js";
import { companionLaunch } from "../../core/views/companion-launch.js";
import { faceEnv, preferences } from "./preferences.js";

/**
 * Connects to the companion, starting it when it is down. Commands never own a process: the
 * companion runs the agents, and outlives the command (Raycast unloads commands at will).
 */
export async function withCompanion<T>(fn: (client: CompanionClient) => Promise<T>): Promise<T> {
  const prefs = preferences();
  const launch = () =>
    companionLaunch({ offrunPath: prefs.offrunPath, nodePath: process.execPath, env: faceEnv(prefs) });
  // Only a companion that is down needs the offrun CLI found: a running one answers at once.
  const client = await CompanionClient.connect().catch(async (error: unknown) => {
    if (!isOffrunError(error, "companion_unavailable")) throw error;
    return ensureCompanion(await launch());
  });
  try {
    return await fn(client);
  } finally {
    client.close();
  }
}
