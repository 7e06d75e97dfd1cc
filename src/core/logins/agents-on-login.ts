import type { AgentRecord } from "../foundation/model.js";
import { knownProjects } from "../foundation/project.js";
import { listAgents } from "../records/records.js";

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
