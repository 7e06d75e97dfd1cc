import type { ChatFacts } from "./chat-facts.js";
import { knownSignInState } from "../logins/sign-in.js";
import type { SnapshotAgent, SnapshotQuota } from "./snapshot.js";
import { snapshotAgent } from "./snapshot-writer.js";
import type { AgentsListed, QuotaRow } from "../protocol/protocol-views.js";

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
  quota: QuotaRow[] | undefined,
): { agents: SnapshotAgent[]; quota: SnapshotQuota[] } {
  const agents = (listing?.projects ?? []).flatMap((project) =>
    project.agents.map(({ record }) => snapshotAgent(record, factsOf(project.root, record.name), host)),
  );
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
    ...signIn(row.signIn.state),
    coverage: row.coverage,
  }));
  return { agents, quota: logins };
}

function signIn(reported: string): Pick<SnapshotQuota, "signIn"> {
  const state = knownSignInState(reported);
  return state ? { signIn: { state } } : {};
}
