import type { AgentEvent } from "../foundation/events.js";
import { agentEventSchema } from "../foundation/events.js";
import { readJsonl } from "../foundation/store.js";
import type { SnapshotAgent, SnapshotQuota } from "../companion/snapshot.js";
import { pendingOf, snapshotAgent } from "../companion/snapshot-writer.js";
import type { AgentsListed, QuotaRow } from "../companion/protocol-views.js";
import { mirrorFile } from "./mirror.js";

/**
 * A host's agents and logins as the snapshot (state.json) lists them, for the menu bar and the
 * Raycast commands, which read only that file: from its last listing, the local copy of each
 * chat log (last words, what waits on the user) and its last quota answer.
 */
export async function hostSnapshot(
  host: string,
  listing: AgentsListed | undefined,
  quota: QuotaRow[] | undefined,
): Promise<{ agents: SnapshotAgent[]; quota: SnapshotQuota[] }> {
  const agents: SnapshotAgent[] = [];
  for (const project of listing?.projects ?? []) {
    for (const { record } of project.agents) {
      const events: AgentEvent[] = (
        await readJsonl(mirrorFile(host, project.root, record.name), agentEventSchema).catch(() => ({ entries: [] }))
      ).entries;
      const lastWords = events.findLast((e) => e.type === "text");
      const said = lastWords?.type === "text" ? { lastWords: lastWords.text } : {};
      agents.push(snapshotAgent(record, { ...said, pending: pendingOf(record, events) }, host));
    }
  }
  const logins = (quota ?? []).map((row): SnapshotQuota => ({
    host,
    harness: row.harness,
    label: row.label,
    windows: row.windows,
    ...(row.blocking ? { blocking: row.blocking } : {}),
    ...(row.limitedUntil ? { limitedUntil: row.limitedUntil } : {}),
    ...(row.source ? { source: row.source } : {}),
    ...(row.observedAt ? { observedAt: row.observedAt } : {}),
    pace: row.pace,
    ...(isSignInState(row.signIn.state) ? { signIn: { state: row.signIn.state } } : {}),
    coverage: row.coverage,
  }));
  return { agents, quota: logins };
}

function isSignInState(state: string): state is "signed-in" | "signed-out" | "unknown" {
  return state === "signed-in" || state === "signed-out" || state === "unknown";
}
