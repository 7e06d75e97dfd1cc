import type { ChatFacts } from "./chat-facts.js";
import type { SnapshotAgent, SnapshotQuota } from "./snapshot.js";
import { snapshotAgent } from "./snapshot-writer.js";
import type { AgentsListed } from "../protocol/protocol-views.js";
import type { QuotaListRow } from "../quota/row.js";

/**
 * A host's agents and logins as the snapshot (state.json) lists them, for the menu bar and the
 * Raycast commands, which read only that file: from its last listing, what the copy of each chat
 * log says (last words, what waits on the user: kept by the mirror as it copies) and its last
 * quota answer.
 */
export function hostSnapshot(
  host: string,
  listing: AgentsListed | undefined,
  factsOf: (project: string, agent: string) => ChatFacts,
  quota: QuotaListRow[] | undefined,
): { agents: SnapshotAgent[]; quota: SnapshotQuota[] } {
  const agents = (listing?.projects ?? []).flatMap((project) =>
    project.agents.map(({ record }) => snapshotAgent(record, factsOf(project.root, record.name), host)),
  );
  const logins = (quota ?? []).map((answered) => {
    const row: SnapshotQuota = { ...answered, host };
    delete row.attempts; // state.json never lists each source tried
    return row;
  });
  return { agents, quota: logins };
}
