import { needsCompanion, type AgentRecord } from "../foundation/model.js";
import { runningCompanionPid } from "../foundation/pids.js";
import { listAgentsDetailed, type AgentListing } from "../records/records.js";

/**
 * Only the companion runs turns. When it was killed (`kill -9`, a crash), the records it left
 * still say "working" or "needs-you", and nothing will ever change them until a companion starts
 * and recovers them. The faces read records without starting one, so they show such agents as
 * they will be after that recovery: the turn interrupted, with what to do.
 */

/** Said for an agent whose turn lost its companion. */
export const COMPANION_GONE =
  "Interrupted: the companion is not running (it stopped during this turn). Start it (Start Companion in Raycast, or `offrun companion start`), then send a message to continue the same session.";

/** The record as a face shows it: a turn left without a companion is interrupted (failed, with the reason). */
export function asSeen(record: AgentRecord, companionRunning: boolean): AgentRecord {
  if (companionRunning || !needsCompanion(record)) return record;
  return { ...record, status: "failed", lastError: COMPANION_GONE };
}

/** A project's agents as the faces show them (see asSeen): one pid-file read for the whole listing. */
export async function listAgentsAsSeen(root: string, companionRunning?: boolean): Promise<AgentListing> {
  const listing = await listAgentsDetailed(root);
  const running = companionRunning ?? (await runningCompanionPid()) !== undefined;
  return { ...listing, agents: listing.agents.map((record) => asSeen(record, running)) };
}

export { runningCompanionPid } from "../foundation/pids.js";
