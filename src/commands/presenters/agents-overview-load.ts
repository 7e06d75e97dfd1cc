import { listLogins } from "../../core/logins/store.js";
import { listAgentsAsSeen, runningCompanionPid } from "../../core/agents/orphans.js";
import { projectPaths } from "../../core/foundation/paths.js";
import { knownProjects } from "../../core/foundation/project.js";
import { keptStateProblems } from "../../core/foundation/problem-register.js";
import { loginKey } from "../../core/quota/ledger.js";
import { cachedLoginQuota } from "../../core/quota/pipeline.js";
import { agentKey, buildAgentsOverview, harnessContextWindow, type AgentsOverview } from "./agents-overview.js";
import { readContextUse, type ContextUse } from "./context-use.js";
import { readHostAgents } from "./host-agents.js";

/**
 * Reads every known project's agents, the logins' cached quota, each agent's context use, the
 * problems the companion kept of Offrun's own files, and (unless `hosts` is false) every host's
 * agents through the companion, each host time-boxed.
 * `signal` stops between reads once the answer is not wanted (the Agents view polls every 3 s).
 */
export async function loadAgentsOverview(
  options: { env?: NodeJS.ProcessEnv; now?: number; projects?: string[]; signal?: AbortSignal; hosts?: boolean } = {},
): Promise<AgentsOverview> {
  const { signal } = options;
  const env = options.env ?? process.env;
  const now = options.now ?? Date.now();
  const running = (await runningCompanionPid()) !== undefined;
  // The hosts answer over the companion while this machine's files are read. Both are awaited
  // together: an abort that ends one must not leave the other's rejection unhandled.
  const [hosts, { projects, quotas, context }, stateProblems] = await Promise.all([
    options.hosts === false ? undefined : readHostAgents({ companionRunning: running, signal }),
    readThisMachine(options.projects, env, now, running, signal),
    keptStateProblems(now).catch(() => []),
  ]);
  signal?.throwIfAborted();
  for (const { host, record, use } of hosts?.context ?? []) context.set(agentKey(record, host), use);
  return buildAgentsOverview(
    {
      projects: [...projects, ...(hosts?.projects ?? [])],
      quotas: [...quotas, ...(hosts?.quotas ?? [])],
      context,
      contextWindow: harnessContextWindow,
      unreachable: hosts?.unreachable ?? [],
      overBudget: hosts?.overBudget ?? [],
      stateProblems,
    },
    now,
  );
}

/** This machine's projects, the logins their agents use (cached quota) and each agent's context use. */
async function readThisMachine(
  only: string[] | undefined,
  env: NodeJS.ProcessEnv,
  now: number,
  running: boolean,
  signal: AbortSignal | undefined,
) {
  const roots = only ?? (await knownProjects());
  signal?.throwIfAborted();
  const projects = await Promise.all(roots.map(async (root) => ({ root, ...(await listAgentsAsSeen(root, running)) })));
  signal?.throwIfAborted();
  const records = projects.flatMap((p) => p.agents);
  const logins = await listLogins(undefined, env);
  signal?.throwIfAborted();
  const used = new Set(records.map((r) => `${r.harness}/${r.account}`));
  const quotas = await Promise.all(
    logins.filter((a) => used.has(loginKey(a))).map((a) => cachedLoginQuota(a, new Date(now))),
  );
  const context = new Map<string, ContextUse>();
  await Promise.all(
    records.map(async (record) => {
      const use = await readContextUse(projectPaths(record.project).chat(record.name));
      if (use) context.set(agentKey(record), use);
    }),
  );
  return { projects, quotas, context };
}
