import type { Account } from "../foundation/account-model.js";
import { renameAccount } from "./accounts.js";
import { listAgents, writeAgent } from "../records/records.js";
import { OffrunError } from "../foundation/errors.js";
import type { AgentRecord } from "../foundation/model.js";
import { knownProjects } from "../foundation/project.js";
import { renameLedgerEntry } from "../quota/ledger.js";
import { moveSignIn } from "./sign-in.js";

/**
 * Renames a login everywhere Offrun names it: accounts.json (and its default entry), then the
 * records of the agents on it in every known project, so their next turn still finds the login.
 * Refused while one of those agents is in a turn: the running turn rewrites its record with the
 * old name. The login's cached quota moves too: a limited login must stay limited under its new
 * name, not look fresh until the next observation.
 */
export async function renameLogin(request: {
  harness: string;
  label: string;
  to: string;
  processEnv?: NodeJS.ProcessEnv;
}): Promise<{ account: Account; agents: string[] }> {
  // Read now, not before: in the companion this runs under the turn locks of these agents
  // (Supervisor.whileAllIdle), so the records are the ones the turns left.
  const onLogin = await agentsOnLogin(request.harness, request.label);
  const busy = onLogin.filter((r) => r.status === "working" || r.status === "needs-you");
  if (busy.length > 0) {
    throw new OffrunError(
      "invalid_input",
      `Login '${request.label}' has agents in a turn (${busy.map((r) => r.name).join(", ")}). Rename it once they are idle, or stop them first.`,
    );
  }
  const account = await renameAccount(request);
  const now = new Date().toISOString();
  for (const record of onLogin) await writeAgent({ ...record, account: account.label, updatedAt: now });
  await renameLedgerEntry(request.harness, request.label, account.label);
  await moveSignIn(request.harness, request.label, account.label);
  return { account, agents: onLogin.map((r) => r.name) };
}

/** The records of every agent, in every known project, that runs on this login. */
export async function agentsOnLogin(harness: string, label: string): Promise<AgentRecord[]> {
  const onLogin: AgentRecord[] = [];
  for (const root of await knownProjects()) {
    for (const record of await listAgents(root).catch(() => [])) {
      if (record.harness === harness && record.account === label) onLogin.push(record);
    }
  }
  return onLogin;
}
