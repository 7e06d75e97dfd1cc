import { pendingFromLog } from "../agents/approvals.js";
import { CompanionClient } from "../companion/client.js";
import { readSnapshot } from "../companion/snapshot.js";
import { describeError } from "../foundation/errors.js";
import { agentEventSchema } from "../foundation/events.js";
import type { AgentRecord } from "../foundation/model.js";
import { readJsonl } from "../foundation/store.js";
import type { AccountQuota } from "../quota/ledger.js";
import { readHosts, sshShellText } from "../remote/hosts-file.js";
import { mirrorFile } from "../remote/mirror.js";
import { conversationMarkdown, numberedDiff, type AgentDetailData } from "./agent-detail.js";
import type { HostProblem, OverviewInput } from "./agents-overview.js";
import { readContextUse, type ContextUse } from "./context-use.js";

/**
 * The Agents view's part about other machines (core/remote). A face cannot reach a host itself:
 * the companion keeps the SSH connections, so the listing comes from it (`hosts.agents`, each host
 * time-boxed), and what the companion already copied here is read from disk: the hosts' logins
 * from state.json and each agent's chat log from its local copy.
 */

export interface HostAgents {
  projects: OverviewInput["projects"];
  quotas: OverviewInput["quotas"];
  /** Context use of the agents whose chat copy has a usage event. */
  context: { host: string; record: AgentRecord; use: ContextUse }[];
  unreachable: HostProblem[];
}

const NONE: HostAgents = { projects: [], quotas: [], context: [], unreachable: [] };

/** Every host's agents; a host that does not answer (or a companion that is down) is named with why. */
export async function readHostAgents(options: {
  companionRunning: boolean;
  signal?: AbortSignal;
}): Promise<HostAgents> {
  let hosts;
  try {
    hosts = await readHosts();
  } catch (error) {
    return { ...NONE, unreachable: [{ host: "hosts.json", message: describeError(error) }] };
  }
  if (hosts.length === 0) return NONE;
  if (!options.companionRunning) {
    return {
      ...NONE,
      unreachable: hosts.map((h) => ({
        host: h.name,
        message: `The companion is not running, and it keeps the connection to ${h.name}. Start it with Start Companion.`,
        companionDown: true,
      })),
    };
  }
  const [answer, snapshot] = await Promise.all([
    withClient((client) => client.call("hosts.agents", {})).catch((error: unknown) => error as Error),
    readSnapshot(),
  ]);
  options.signal?.throwIfAborted();
  if (answer instanceof Error) {
    return { ...NONE, unreachable: hosts.map((h) => ({ host: h.name, message: describeError(answer) })) };
  }
  const entries = new Map(hosts.map((h) => [h.name, h]));
  const projects = answer.hosts.flatMap((h) => {
    if (!h.ok) return [];
    const entry = entries.get(h.host);
    return h.value.projects.map((p) => ({
      root: p.root,
      host: h.host,
      ...(entry ? { shellAt: (dir: string) => sshShellText(entry, dir) } : {}),
      agents: p.agents.map((a) => a.record),
      unreadable: p.unreadable,
    }));
  });
  const unreachable = answer.hosts.flatMap((h) => (h.ok ? [] : [{ host: h.host, message: h.error.message }]));
  // The hosts' logins as the companion last read them (every minute, into state.json).
  const quotas = (snapshot?.quota ?? []).flatMap((q): (AccountQuota & { host?: string })[] =>
    q.host ? [{ ...q, attempts: [] }] : [],
  );
  const context = (
    await Promise.all(
      projects.flatMap((p) =>
        p.agents.map(async (record) => {
          const use = await readContextUse(mirrorFile(p.host, p.root, record.name));
          return use ? [{ host: p.host, record, use }] : [];
        }),
      ),
    )
  ).flat();
  return { projects, quotas, context, unreachable };
}

/**
 * One host agent's detail: its conversation and what it waits for from the local copy of its chat
 * log (the companion keeps it up to date; asked of the host when there is no copy yet), its diff
 * from the host, where its worktree is.
 */
export async function loadHostAgentDetail(
  host: string,
  record: AgentRecord,
  options: { signal?: AbortSignal } = {},
): Promise<AgentDetailData> {
  const { project, name } = record;
  const copy = await readJsonl(mirrorFile(host, project, name), agentEventSchema).catch(() => undefined);
  return withClient(async (client) => {
    const caller = client.on(host, DETAIL_MS);
    const [shown, diff] = await Promise.all([
      copy && copy.entries.length > 0 ? undefined : caller.call("agent.show", { project, name }),
      caller.call("agent.diff", { project, name }).catch((error: unknown) => error as Error),
    ]);
    options.signal?.throwIfAborted();
    const latest = shown?.agent ?? record;
    const events = shown?.events ?? copy?.entries ?? [];
    return {
      record: latest,
      markdown: conversationMarkdown(latest, events),
      pending: shown?.pending ?? pendingFromLog(latest, events),
      // The files are on the host: the diff shows them; there is nothing here to preview.
      files: [],
      diffMarkdown:
        diff instanceof Error
          ? `*No diff from ${host}: ${describeError(diff)}*`
          : diff.files.length === 0
            ? `*No changes since ${diff.base.slice(0, 8)}.*`
            : numberedDiff(diff.patch),
    };
  });
}

/** How long a host may take over one agent's detail (a diff of a big worktree runs git there). */
const DETAIL_MS = 15_000;

async function withClient<T>(fn: (client: CompanionClient) => Promise<T>): Promise<T> {
  const client = await CompanionClient.connect();
  try {
    return await fn(client);
  } finally {
    client.close();
  }
}
