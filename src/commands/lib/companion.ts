import { CompanionClient, type Caller } from "../../core/protocol/client.js";
import type { AgentRecord } from "../../core/foundation/model.js";
import { OffrunError, isOffrunError } from "../../core/foundation/errors.js";
import {
  START_COMPANION_COMMAND,
  startCompanionService,
  type StartedCompanion,
} from "../presenters/companion-start.js";
import { faceEnv, preferences } from "./preferences.js";

/**
 * Connects to the companion. A command never starts it: the companion is a service that runs the
 * agents and outlives every command (Raycast unloads commands at will, and a daemon started from
 * here would get Raycast's environment). When it is down the error says so, and the failure views
 * and toasts offer Start Companion (see startCompanion).
 */
export async function withCompanion<T>(fn: (client: CompanionClient) => Promise<T>): Promise<T> {
  const client = await CompanionClient.connect().catch((error: unknown) => {
    throw isOffrunError(error, "companion_unavailable") ? companionNotRunning(error) : error;
  });
  try {
    return await fn(client);
  } finally {
    client.close();
  }
}

/** An agent of this machine, or of `host`. */
export interface AgentTarget {
  record: AgentRecord;
  host?: string;
}

/** How long a host may take over an action (a merge runs git there). */
const HOST_ACTION_MS = 60_000;

/** Sends requests about `target` to the companion that runs it. */
export function withAgentCompanion<T>(
  target: Pick<AgentTarget, "host">,
  fn: (caller: Caller) => Promise<T>,
  hostTimeoutMs = HOST_ACTION_MS,
): Promise<T> {
  return withCompanion((c) => fn(target.host ? c.on(target.host, hostTimeoutMs) : c));
}

/** "fix-upload", or "devbox:fix-upload" for a host's agent. */
export function shownName(target: { record: Pick<AgentRecord, "name">; host?: string }): string {
  return target.host ? `${target.host}:${target.record.name}` : target.record.name;
}

export function companionNotRunning(cause?: unknown): OffrunError {
  return new OffrunError(
    "companion_unavailable",
    `The Offrun companion is not running, and it runs every agent. Start it with Start Companion, or run \`${START_COMPANION_COMMAND}\` in a terminal.`,
    cause === undefined ? undefined : { cause },
  );
}

/** Installs the companion as the login service (or starts it), with the user's login environment. */
export async function startCompanion(): Promise<StartedCompanion> {
  const prefs = preferences();
  return startCompanionService({ offrunPath: prefs.offrunPath, nodePath: process.execPath, env: faceEnv(prefs) });
}

export { START_COMPANION_COMMAND };

/** Set Up Offrun's launch context that makes it only start the companion (the menu bar's Start Companion). */
export const START_COMPANION_CONTEXT = { startCompanion: true } as const;
