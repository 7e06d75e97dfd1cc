import fs from "node:fs/promises";
import path from "node:path";
import { listAccounts } from "../logins/accounts.js";
import { listAgentsAsSeen, runningCompanionPid } from "../agents/orphans.js";
import { agentEventSchema, type AgentEvent } from "../foundation/events.js";
import type { AgentRecord, AgentStatus } from "../foundation/model.js";
import { projectPaths } from "../foundation/paths.js";
import { knownProjects } from "../foundation/project.js";
import { accountKey, type AccountQuota } from "../quota/ledger.js";
import { BUILTIN_HARNESSES } from "../../harnesses/registry.js";
import { cachedAccountQuota } from "../quota/pipeline.js";
import { splitJsonl } from "../foundation/store.js";
import { elapsedShort } from "./format.js";
import { viewLoginQuota, type LoginQuotaView } from "./login-quota.js";

/** The Agents view: every agent of every known project, grouped by project, needs-you first. */

export const STATUS_TITLES: Record<AgentStatus, string> = {
  "needs-you": "Needs You",
  working: "Working",
  limited: "Limited",
  failed: "Failed",
  idle: "Idle",
  done: "Done",
};

/** Order within a project: what wants the user first, finished work last. */
const STATUS_RANK: Record<AgentStatus, number> = {
  "needs-you": 0,
  working: 1,
  limited: 2,
  failed: 3,
  idle: 4,
  done: 5,
};

/** What the last `usage` event of an agent's log says about its context. */
export interface ContextUse {
  /** Tokens in the model's context on the last call: input plus cache reads and writes. */
  tokens: number;
  /** The model that answered (the stream's session event), else the one the agent was started with. */
  model?: string;
}

/** Context use with the model's window, where the harness knows it. */
export interface ContextView extends ContextUse {
  window?: number;
  /** Share of the window in use, 0-100 (more when the CLI ran with a larger window than the table's). */
  percent?: number;
}

/** The context window of a harness's model, or undefined when the harness cannot say. */
export type ContextWindowOf = (harness: string, model: string | undefined) => number | undefined;

/** The built-in harnesses' own tables (custom ACP agents have none). */
export const harnessContextWindow: ContextWindowOf = (harness, model) =>
  BUILTIN_HARNESSES.find((h) => h.id === harness)?.contextWindow?.(model);

/** Pure: the percentage of the window that the last call filled. */
export function viewContext(use: ContextUse, window: number | undefined): ContextView {
  if (!window) return use;
  return { ...use, window, percent: Math.round((use.tokens / window) * 100) };
}

export interface AgentRow {
  record: AgentRecord;
  statusTitle: string;
  /** Time in the current turn while working or waiting; since creation otherwise. */
  elapsed: string;
  login: LoginQuotaView | undefined;
  context: ContextView | undefined;
}

export interface ProjectGroup {
  root: string;
  name: string;
  agents: AgentRow[];
  needsYou: number;
}

export interface AgentsOverview {
  groups: ProjectGroup[];
  needsYou: number;
  /** Agent records that could not be read, with the reason. */
  problems: string[];
}

export interface OverviewInput {
  projects: { root: string; agents: AgentRecord[]; unreadable: { file: string; problem: string }[] }[];
  quotas: AccountQuota[];
  context: ReadonlyMap<string, ContextUse>;
  contextWindow?: ContextWindowOf;
}

export function agentKey(record: Pick<AgentRecord, "project" | "name">): string {
  return `${record.project}\u0000${record.name}`;
}

/** Pure: sorts and labels what was read. */
export function buildAgentsOverview(input: OverviewInput, now: number): AgentsOverview {
  const quotas = new Map(input.quotas.map((q) => [accountKey(q), q]));
  const contextOf = (record: AgentRecord): ContextView | undefined => {
    const use = input.context.get(agentKey(record));
    if (!use) return undefined;
    const model = use.model ?? record.model;
    return viewContext({ ...use, ...(model ? { model } : {}) }, input.contextWindow?.(record.harness, model));
  };
  const groups = input.projects
    .map((project): ProjectGroup => {
      const agents = [...project.agents]
        .sort((a, b) => STATUS_RANK[a.status] - STATUS_RANK[b.status] || b.updatedAt.localeCompare(a.updatedAt))
        .map((record) => {
          const quota = quotas.get(accountKey({ harness: record.harness, label: record.account }));
          const inTurn = record.status === "working" || record.status === "needs-you";
          return {
            record,
            statusTitle: STATUS_TITLES[record.status],
            elapsed: elapsedShort(inTurn ? (record.turnStartedAt ?? record.createdAt) : record.createdAt, now),
            login: quota ? viewLoginQuota(quota, now) : undefined,
            context: contextOf(record),
          };
        });
      return {
        root: project.root,
        name: path.basename(project.root),
        agents,
        needsYou: agents.filter((a) => a.record.status === "needs-you").length,
      };
    })
    .filter((group) => group.agents.length > 0)
    .sort((a, b) => Number(b.needsYou > 0) - Number(a.needsYou > 0));
  return {
    groups,
    needsYou: groups.reduce((sum, g) => sum + g.needsYou, 0),
    problems: input.projects.flatMap((p) => p.unreadable.map((u) => u.problem)),
  };
}

/** The last usage event of an agent's chat, from the log's last 64 KB (logs grow long). */
export async function readContextUse(root: string, agent: string): Promise<ContextUse | undefined> {
  const events = await readChatTail(root, agent, 64 * 1024);
  const usage = events.findLast((e) => e.type === "usage");
  if (!usage || usage.type !== "usage") return undefined;
  const session = events.findLast((e) => e.type === "session" && e.model !== undefined);
  const model = session?.type === "session" ? session.model : undefined;
  return {
    tokens: usage.inputTokens + (usage.cacheReadTokens ?? 0) + (usage.cacheWriteTokens ?? 0),
    ...(model ? { model } : {}),
  };
}

/** The events in the last `bytes` of a chat log; the first, partial line is skipped. */
export async function readChatTail(root: string, agent: string, bytes: number): Promise<AgentEvent[]> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(projectPaths(root).chat(agent), "r");
  } catch {
    return [];
  }
  try {
    const { size } = await handle.stat();
    const start = Math.max(0, size - bytes);
    const buffer = Buffer.alloc(size - start);
    await handle.read(buffer, 0, buffer.length, start);
    const lines = splitJsonl(buffer.toString("utf8"));
    if (start > 0) lines.shift();
    return lines.flatMap((line) => {
      try {
        const parsed = agentEventSchema.safeParse(JSON.parse(line));
        return parsed.success ? [parsed.data] : [];
      } catch {
        return [];
      }
    });
  } finally {
    await handle.close();
  }
}

/**
 * Reads every known project's agents, the logins' cached quota and each agent's context use.
 * `signal` stops between reads once the answer is not wanted (the Agents view polls every 3 s).
 */
export async function loadAgentsOverview(
  options: { env?: NodeJS.ProcessEnv; now?: number; projects?: string[]; signal?: AbortSignal } = {},
): Promise<AgentsOverview> {
  const { signal } = options;
  const env = options.env ?? process.env;
  const roots = options.projects ?? (await knownProjects());
  signal?.throwIfAborted();
  const running = (await runningCompanionPid()) !== undefined;
  const projects = await Promise.all(roots.map(async (root) => ({ root, ...(await listAgentsAsSeen(root, running)) })));
  signal?.throwIfAborted();
  const records = projects.flatMap((p) => p.agents);
  const now = options.now ?? Date.now();
  const accounts = await listAccounts(undefined, env);
  signal?.throwIfAborted();
  const used = new Set(records.map((r) => `${r.harness}/${r.account}`));
  const quotas = await Promise.all(
    accounts.filter((a) => used.has(accountKey(a))).map((a) => cachedAccountQuota(a, new Date(now))),
  );
  const context = new Map<string, ContextUse>();
  await Promise.all(
    records.map(async (record) => {
      const use = await readContextUse(record.project, record.name);
      if (use) context.set(agentKey(record), use);
    }),
  );
  return buildAgentsOverview({ projects, quotas, context, contextWindow: harnessContextWindow }, now);
}
