import path from "node:path";
import * as z from "zod";
import type { AgentsOverview } from "./agents-overview.js";

/**
 * What a notification's deeplink hands the Agents command (src/core/notify/deeplink.ts): the
 * project and agent it is about. Raycast passes it as `launchContext`; it came through a URL, so
 * it is checked like any input from outside.
 */
export const agentsLaunchContextSchema = z.object({
  project: z.string().min(1),
  agent: z.string().min(1),
  /** Another machine's agent (core/remote): `project` is a path there. */
  host: z.string().min(1).optional(),
});
export type AgentsLaunchContext = z.infer<typeof agentsLaunchContextSchema>;

/** The List.Item id of an agent in the Agents view (a host's project path may equal one here). */
export function agentItemId(root: string, name: string, host?: string): string {
  return host ? `${host}:${root}/${name}` : `${root}/${name}`;
}

/**
 * The item id of the agent a launch context points at, when it is one of Offrun's agents. Undefined for no
 * context, a malformed one, or a session started outside Offrun ("session 1a2b3c4d"): the view
 * then opens on the list as usual.
 */
export function launchSelection(overview: AgentsOverview | undefined, context: unknown): string | undefined {
  const parsed = agentsLaunchContextSchema.safeParse(context);
  if (!overview || !parsed.success) return undefined;
  const { host, agent } = parsed.data;
  // A host's path is the host's: it is compared as it is, not resolved here.
  const project = host ? parsed.data.project : path.resolve(parsed.data.project);
  for (const group of overview.groups) {
    if (group.host !== host || (host ? group.root : path.resolve(group.root)) !== project) continue;
    const row = group.agents.find((r) => r.record.name === agent);
    return row ? agentItemId(group.root, row.record.name, host) : undefined;
  }
  return undefined;
}

/**
 * The item whose detail (conversation, diff) the Agents view loads: the one Raycast last reported
 * selected while it is still listed, else the deeplink's, else the first, as Raycast selects it.
 * `null` is Raycast's word for "nothing selected" (the search filtered every item out).
 */
export function selectedAgentId(
  ids: readonly string[],
  reported: string | null | undefined,
  launched: string | undefined,
): string | undefined {
  if (reported === null) return undefined;
  if (reported !== undefined && ids.includes(reported)) return reported;
  if (launched !== undefined && ids.includes(launched)) return launched;
  return ids[0];
}
