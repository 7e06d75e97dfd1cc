import path from "node:path";
import type { AgentRecord, AgentStatus } from "../../core/foundation/model.js";
import { loginKey, type LoginReading } from "../../core/quota/ledger.js";
import { BUILTIN_HARNESSES } from "../../harnesses/registry.js";
import { elapsedShort } from "../../core/foundation/format.js";
import { viewLoginQuota, type LoginQuotaView } from "../../core/logins/login-quota.js";
import type { ContextUse } from "./context-use.js";
import { byCodeUnits } from "../../core/foundation/text-order.js";

export type { ContextUse };

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
  /** The machine the agent runs on, when not this one (core/remote): its project is a path there. */
  host?: string;
  /** For a host's agent: the command that opens a shell in its worktree there. */
  ssh?: string;
  statusTitle: string;
  /** Time in the current turn while working or waiting; since creation otherwise. */
  elapsed: string;
  login: LoginQuotaView | undefined;
  context: ContextView | undefined;
}

export interface ProjectGroup {
  root: string;
  /** Another machine's project (its agents' rows carry the same host). */
  host?: string;
  /** The folder's name, with "on devbox" for a host's project. */
  name: string;
  agents: AgentRow[];
  needsYou: number;
}

export interface AgentsOverview {
  groups: ProjectGroup[];
  needsYou: number;
  /** Offrun's files that could not be read or were repaired: agent records, and what the companion kept (problem-register.ts). */
  problems: FileProblem[];
  /** Hosts whose agents could not be listed, with why (host-agents.ts). */
  unreachable: HostProblem[];
  /** Hosts' agents whose logs this machine did not copy (further), over a budget (host-agents.ts). */
  overBudget: HostOverBudget[];
}

/** One of Offrun's files that is damaged, or was repaired, and what to do. */
export interface FileProblem {
  file: string;
  /** Another machine's file. */
  host?: string;
  message: string;
  repaired?: boolean;
}

/** One host agent's log not copied here, over a budget: why, and the command that raises it. */
export interface HostOverBudget {
  host: string;
  agent: string;
  project: string;
  message: string;
  raise?: string;
}

export interface HostProblem {
  host: string;
  message: string;
  /** This machine's companion, which keeps the connections, is not running: starting it is the fix. */
  companionDown?: boolean;
}

export interface OverviewInput {
  projects: {
    root: string;
    host?: string;
    /** A host's: the command line that opens a shell there in a folder. */
    shellAt?: (dir: string) => string;
    agents: AgentRecord[];
    unreadable: { file: string; problem: string }[];
  }[];
  /** Logins' quota; a host's carry its name. */
  quotas: (LoginReading & { host?: string })[];
  /** Context use by agentKey. */
  context: ReadonlyMap<string, ContextUse>;
  contextWindow?: ContextWindowOf;
  unreachable?: HostProblem[];
  overBudget?: HostOverBudget[];
  /** This machine's state files the companion found damaged and that still are, or were repaired lately. */
  stateProblems?: FileProblem[];
}

/** One agent among those of every machine: a host's project path may equal one here. */
export function agentKey(record: Pick<AgentRecord, "project" | "name">, host?: string): string {
  return `${host ?? ""}\u0000${record.project}\u0000${record.name}`;
}

const hostLoginKey = (login: { harness: string; label: string }, host?: string) =>
  `${host ?? ""}\u0000${loginKey(login)}`;

/** Pure: sorts and labels what was read. */
export function buildAgentsOverview(input: OverviewInput, now: number): AgentsOverview {
  const quotas = new Map(input.quotas.map((q) => [hostLoginKey(q, q.host), q]));
  const contextOf = (record: AgentRecord, host: string | undefined): ContextView | undefined => {
    const use = input.context.get(agentKey(record, host));
    if (!use) return undefined;
    const model = use.model ?? record.model;
    return viewContext({ ...use, ...(model ? { model } : {}) }, input.contextWindow?.(record.harness, model));
  };
  const groups = input.projects
    .map((project): ProjectGroup => {
      // A discarded agent has no worktree left to act on: `offrun ls --all` still lists it.
      const agents = project.agents
        .filter((record) => record.discardedAt === undefined)
        .sort((a, b) => STATUS_RANK[a.status] - STATUS_RANK[b.status] || byCodeUnits(b.updatedAt, a.updatedAt))
        .map((record): AgentRow => {
          const quota = quotas.get(hostLoginKey({ harness: record.harness, label: record.account }, project.host));
          const inTurn = record.status === "working" || record.status === "needs-you";
          return {
            record,
            ...(project.host ? { host: project.host } : {}),
            ...(project.shellAt ? { ssh: project.shellAt(record.worktree) } : {}),
            statusTitle: STATUS_TITLES[record.status],
            elapsed: elapsedShort(inTurn ? (record.turnStartedAt ?? record.createdAt) : record.createdAt, now),
            login: quota ? viewLoginQuota(quota, now) : undefined,
            context: contextOf(record, project.host),
          };
        });
      return {
        root: project.root,
        ...(project.host ? { host: project.host } : {}),
        name: project.host ? `${path.posix.basename(project.root)} on ${project.host}` : path.basename(project.root),
        agents,
        needsYou: agents.filter((a) => a.record.status === "needs-you").length,
      };
    })
    .filter((group) => group.agents.length > 0)
    .sort((a, b) => Number(b.needsYou > 0) - Number(a.needsYou > 0));
  return {
    groups,
    needsYou: groups.reduce((sum, g) => sum + g.needsYou, 0),
    problems: [
      ...input.projects.flatMap((p) =>
        p.unreadable.map((u) => ({ file: u.file, message: u.problem, ...(p.host ? { host: p.host } : {}) })),
      ),
      ...(input.stateProblems ?? []),
    ],
    unreachable: input.unreachable ?? [],
    overBudget: input.overBudget ?? [],
  };
}
