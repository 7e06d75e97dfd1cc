import fs from "node:fs/promises";
import { readAgent, readChat } from "../core/records/records.js";
import { asSeen, listAgentsAsSeen, runningCompanionPid } from "../core/agents/orphans.js";
import type { AgentEvent } from "../core/foundation/events.js";
import { findRepoRoot } from "../core/git/repo.js";
import { AGENT_STATUSES, type AgentRecord } from "../core/foundation/model.js";
import { projectPaths } from "../core/foundation/paths.js";
import { throughCompanion, withCompanion } from "./context.js";
import { describeError, isOffrunError, OffrunError } from "../core/foundation/errors.js";
import { pendingFromLog } from "../core/agents/approvals.js";
import { AGENT_HEADER, agentRows, elapsed, renderEvent, renderPending, table } from "./format.js";
import { output, projectDir } from "./output.js";
import { splitTarget, withAgent, type HostOptions } from "./target.js";
import { findHost, readHosts } from "../core/remote/hosts-file.js";

/**
 * ls, show, diff, merge, discard: on this machine they read and change files directly, without
 * the companion; about another machine's agents they ask it, through the companion's connection.
 */

/** What `ls` shows: every agent but the discarded ones (`--all` shows them), in a status, of a CLI. */
export interface ListFilter {
  all?: boolean;
  status?: string;
  cli?: string;
}

export async function ls(options: HostOptions & ListFilter): Promise<void> {
  const keep = agentFilter(options);
  const hosts = await readHosts();
  if (hosts.length > 0 || options.host) return lsEverywhere(options, keep);
  const root = await findRepoRoot(projectDir(options));
  const listing = await listAgentsAsSeen(root);
  const agents = listing.agents.filter(keep.shows);
  output(options, { ...listing, agents }, () => {
    if (listing.agents.length === 0 && listing.unreadable.length === 0) {
      return `No agents in ${root} yet. Start one: offrun start "describe the task"`;
    }
    const problems = listing.unreadable.map((u) => `⚠ ${u.problem}`);
    const body = agents.length > 0 ? [table(AGENT_HEADER, agentRows(agents))] : [`No agent in ${root} ${keep.words}.`];
    return [...body, ...keep.footer(listing.agents), ...problems].join("\n");
  });
}

/** The filter of `ls`'s options, checked: an unknown status is a usage error naming the ones there are. */
function agentFilter(options: ListFilter) {
  if (options.status !== undefined && !(AGENT_STATUSES as readonly string[]).includes(options.status)) {
    throw new OffrunError(
      "invalid_input",
      `There is no status '${options.status}': an agent is ${AGENT_STATUSES.join(", ")}. For example: offrun ls --status needs-you`,
    );
  }
  const shows = (agent: AgentRecord) =>
    (options.all || agent.discardedAt === undefined) &&
    (options.status === undefined || agent.status === options.status) &&
    (options.cli === undefined || agent.harness === options.cli);
  const named = [...(options.status ? [`${options.status}`] : []), ...(options.cli ? [`of ${options.cli}`] : [])].join(
    " ",
  );
  return {
    shows,
    words: named ? `is ${named}` : "is left that you did not discard",
    /** Says how many discarded agents the list leaves out, and how to see them. */
    footer: (agents: AgentRecord[]): string[] => {
      if (options.all) return [];
      const hidden = agents.filter(
        (a) =>
          a.discardedAt !== undefined &&
          (options.status === undefined || a.status === options.status) &&
          (options.cli === undefined || a.harness === options.cli),
      ).length;
      return hidden > 0 ? [`${hidden} discarded agent(s) not shown: offrun ls --all`] : [];
    },
  };
}

export async function show(name: string, options: HostOptions): Promise<void> {
  if (splitTarget(name, options).host) {
    return withAgent(name, options, async (target) => {
      const shown = await target.caller.call("agent.show", { project: target.project, name: target.name });
      output(options, shown, () =>
        showText(shown.agent, shown.events, shown.corruptLines, shown.setupLog, target.host),
      );
    });
  }
  const root = await findRepoRoot(projectDir(options));
  const record = asSeen(await readAgent(root, name), (await runningCompanionPid()) !== undefined);
  const chat = await readChat(root, name);
  const setupLog = projectPaths(root).log(name);
  const hasSetupLog = await fs.stat(setupLog).then(
    (stat) => stat.size > 0,
    () => false,
  );
  const pending = pendingFromLog(record, chat.entries);
  output(options, { agent: record, pending, events: chat.entries, corruptLines: chat.corrupt }, () =>
    showText(record, chat.entries, chat.corrupt.length, hasSetupLog ? setupLog : undefined),
  );
}

export async function diff(name: string, options: HostOptions & { stat?: boolean }): Promise<void> {
  const result = splitTarget(name, options).host
    ? await withAgent(name, options, (target) =>
        target.caller.call("agent.diff", { project: target.project, name: target.name }),
      )
    : await (await branchActions()).agentDiff(projectDir(options), name).then((d) => ({ ...d, base: d.record.base }));
  output(options, { files: result.files, patch: result.patch }, () => {
    if (result.files.length === 0) return `${name} has changed nothing since ${result.base.slice(0, 8)}.`;
    const list = result.files.map((f) => `${f.status.padEnd(8)} ${f.path}  +${f.additions} -${f.deletions}`).join("\n");
    return options.stat ? list : `${list}\n\n${result.patch}`;
  });
}

export async function merge(name: string, options: HostOptions): Promise<void> {
  const project = projectDir(options);
  const result = await (splitTarget(name, options).host
    ? withAgent(name, options, (target) =>
        target.caller.call("agent.merge", { project: target.project, name: target.name }),
      )
    : throughCompanion(
        (client) => client.call("agent.merge", { project, name }),
        async () => (await branchActions()).agentMerge(project, name),
      ));
  output(
    options,
    result,
    () =>
      `Merged ${result.record.branch} into ${result.mergedInto} (${result.commit.slice(0, 8)}): ${result.files.length} file(s).`,
  );
}

export async function discard(
  name: string,
  options: HostOptions & { force?: boolean; deleteBranch?: boolean },
): Promise<void> {
  const project = projectDir(options);
  const how = { force: Boolean(options.force), deleteBranch: Boolean(options.deleteBranch) };
  const result = await (splitTarget(name, options).host
    ? withAgent(name, options, (target) =>
        target.caller.call("agent.discard", { project: target.project, name: target.name, ...how }),
      )
    : throughCompanion(
        (client) => client.call("agent.discard", { project, name, ...how }),
        async () => (await branchActions()).agentDiscard(project, name, how),
      ));
  output(options, result, () =>
    result.worktreeRemoved === undefined
      ? `${name} was already discarded (${result.record.discardedAt ?? result.record.updatedAt}); nothing more to remove. The conversation stays in ${result.logFile}.`
      : `Discarded ${name}: removed ${result.worktreeRemoved}. The conversation stays in ${result.logFile}.`,
  );
}

function showText(
  record: AgentRecord,
  events: AgentEvent[],
  corrupt: number,
  setupLog?: string,
  host?: string,
): string {
  const shown = host ? `${host}:${record.name}` : record.name;
  const head = [
    `${shown} · ${record.status} · ${record.harness} (${record.account}) · ${record.mode}`,
    `  task:     ${record.task.split("\n")[0]}`,
    `  worktree: ${record.worktree}${host ? ` (on ${host})` : ""}`,
    `  branch:   ${record.branch} (base ${record.base.slice(0, 8)})`,
    `  port:     ${record.port}`,
    `  elapsed:  ${elapsed(record.createdAt)} since start, ${record.turns} turn(s)`,
    ...(record.sessionId ? [`  session:  ${record.sessionId}`] : []),
    ...(setupLog ? [`  setup log: ${setupLog}`] : []),
    ...(record.lastError ? [`  ⚠ ${record.lastError}`] : []),
    ...(corrupt > 0
      ? [`  ⚠ ${corrupt} line(s) of the chat log could not be read; they are kept in the file as they are.`]
      : []),
  ];
  const body = events.map(renderEvent).filter((line): line is string => line !== undefined);
  // Last, where the eye lands: what the agent waits for, and the exact command to answer it.
  const waiting = renderPending(shown, pendingFromLog(record, events));
  return [...head, ...body, ...(waiting.length > 0 ? ["", ...waiting] : [])].join("\n");
}

/** ls with hosts: this project's agents (when the command runs in one) and every host's, each host time-boxed. */
async function lsEverywhere(options: HostOptions, keep: ReturnType<typeof agentFilter>): Promise<void> {
  // Both at once: the hosts' answers come over the companion while this project's records are read.
  const [local, answers] = await Promise.all([
    options.host ? undefined : localListing(options),
    withCompanion((client) => client.call("hosts.agents", {})).catch(async (error: unknown) => {
      // No companion, no host connections: this machine's agents still show, and each host says why not.
      if (!isOffrunError(error, "companion_unavailable")) throw error;
      const message = `the companion, which keeps the connection, could not start (${describeError(error)})`;
      const down = { kind: "companion_unavailable", message };
      return { hosts: (await readHosts()).map((h) => ({ host: h.name, ok: false as const, error: down, ms: 0 })) };
    }),
  ]);
  const hosts = answers.hosts.filter((h) => !options.host || h.host === options.host);
  if (options.host && hosts.length === 0) await findHost(options.host);
  const remote = hosts.flatMap((h) =>
    h.ok
      ? h.value.projects.flatMap((p) => p.agents.map((a) => ({ host: h.host, project: p.root, agent: a.record })))
      : [],
  );
  const allLocal = local?.agents ?? [];
  const shownRemote = remote.filter(({ agent }) => keep.shows(agent));
  const silent = hosts.flatMap((h) => (h.ok ? [] : [{ host: h.host, error: h.error }]));
  const data = {
    agents: allLocal.filter(keep.shows),
    unreadable: local?.unreadable ?? [],
    remote: shownRemote,
    hosts: hosts.map((h) => ({ host: h.host, ok: h.ok, ms: h.ms, ...(h.ok ? {} : { error: h.error }) })),
  };
  output(options, data, () => {
    const rows = [
      ...agentRows(data.agents).map((row) => ["local", ...row]),
      ...shownRemote.map(({ host, agent }) => {
        const [name, ...rest] = agentRows([agent])[0]!;
        return [host, `${host}:${name}`, ...rest];
      }),
    ];
    const problems = [
      ...data.unreadable.map((u) => `⚠ ${u.problem}`),
      ...silent.map((s) => `⚠ ${s.host} did not answer: ${s.error.message}`),
    ];
    const body =
      rows.length > 0 ? [table(["HOST", ...AGENT_HEADER], rows)] : [nothingListed(options.host, hosts, keep)];
    return [...body, ...keep.footer([...allLocal, ...remote.map((r) => r.agent)]), ...problems].join("\n");
  });
}

/**
 * Why `ls` with hosts shows no row, in words that are true: a host that did not answer has not
 * said it has no agents, and `--host` leaves this machine's agents out rather than finding none.
 */
function nothingListed(
  only: string | undefined,
  hosts: { host: string; ok: boolean }[],
  keep: ReturnType<typeof agentFilter>,
): string {
  const answered = hosts.filter((h) => h.ok).map((h) => h.host);
  const silent = hosts.filter((h) => !h.ok).map((h) => h.host);
  const filtered = keep.words.startsWith("is left") ? "" : ` that ${keep.words}`;
  if (only !== undefined) {
    return silent.length > 0
      ? `${only} did not answer, so its agents are not listed (this machine's are left out by --host: offrun ls without it lists them).`
      : `No agent on ${only}${filtered} yet.`;
  }
  const where = answered.length > 0 ? `here or on ${answered.join(", ")}` : "here";
  const unknown = silent.length > 0 ? ` (${silent.join(", ")} did not answer: below)` : "";
  return `No agent ${where}${filtered} yet${unknown}.`;
}

/** This project's agents, or none when the command runs outside a repository (the hosts still show). */
async function localListing(options: HostOptions) {
  try {
    return await listAgentsAsSeen(await findRepoRoot(projectDir(options)));
  } catch (error) {
    if (options.project === undefined && isOffrunError(error, "invalid_input")) return undefined;
    throw error;
  }
}

/** Loaded by the commands that change or diff a worktree: `ls` and `show` do without git's whole toolbox. */
const branchActions = () => import("../core/agents/branch-actions.js");
