import fs from "node:fs/promises";
import { pendingFromLog } from "../../core/agents/approvals.js";
import { CompanionClient, type Caller } from "../../core/protocol/client.js";
import { readSnapshot } from "../../core/companion/snapshot.js";
import { describeError } from "../../core/foundation/errors.js";
import { parseEventLine, type AgentEvent } from "../../core/foundation/events.js";
import type { AgentRecord } from "../../core/foundation/model.js";
import { splitJsonl } from "../../core/foundation/store.js";
import { sshShellText } from "../../core/remote/hosts-file.js";
import { mirrorFile } from "../../core/companion/mirror.js";
import { describeRefusal, raiseBudgetCommand } from "../../core/companion/copy-budget.js";
import type { ChangedFile } from "../../core/git/diff.js";
import { askHosts } from "../../core/remote/ask-hosts.js";
import { conversationMarkdown, numberedDiff, previewFiles, type AgentDetailData } from "./agent-detail.js";
import type { HostOverBudget, HostProblem, OverviewInput } from "./agents-overview.js";
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
  overBudget: HostOverBudget[];
}

const NONE: HostAgents = { projects: [], quotas: [], context: [], unreachable: [], overBudget: [] };

/** Every host's agents; a host that does not answer (or a companion that is down) is named with why. */
export async function readHostAgents(options: {
  companionRunning: boolean;
  signal?: AbortSignal;
}): Promise<HostAgents> {
  const replies = await askHosts("hosts.agents", { companionRunning: options.companionRunning });
  if (replies.length === 0) return NONE;
  const snapshot = await readSnapshot();
  options.signal?.throwIfAborted();
  const projects = replies.flatMap((h) => {
    if (!h.ok) return [];
    const entry = h.entry;
    return h.value.projects.map((p) => ({
      root: p.root,
      host: h.host,
      ...(entry ? { shellAt: (dir: string) => sshShellText(entry, dir) } : {}),
      agents: p.agents.map((a) => a.record),
      unreadable: p.unreadable,
    }));
  });
  const unreachable = replies.flatMap((h) =>
    h.ok ? [] : [{ host: h.host, message: h.message, ...(h.companionDown ? { companionDown: true } : {}) }],
  );
  // What the companion refused to copy of each host's logs, over its budgets, as it told.
  const overBudget = replies.flatMap(({ host, copies }) => {
    if (!copies) return [];
    const raise = raiseBudgetCommand(host, copies);
    return copies.refused.map((refusal) => ({
      host,
      agent: refusal.agent,
      project: refusal.project,
      message: describeRefusal(host, refusal, copies),
      ...(raise ? { raise } : {}),
    }));
  });
  // The hosts' logins as the companion last read them (every minute, into state.json).
  const quotas = (snapshot?.quota ?? []).flatMap((q) => (q.host ? [{ ...q, attempts: [] }] : []));
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
  return { projects, quotas, context, unreachable, overBudget };
}

/**
 * One host agent's detail: its conversation and what it waits for, from the local copy of its chat
 * log and what the host's log holds beyond it (the companion's copy can be a second behind), and
 * its diff, from the host, where its worktree is.
 */
export async function loadHostAgentDetail(
  host: string,
  record: AgentRecord,
  options: { signal?: AbortSignal } = {},
): Promise<AgentDetailData> {
  const { project, name } = record;
  return withClient(async (client) => {
    const caller = client.on(host, DETAIL_MS);
    const [events, diff] = await Promise.all([
      hostChat(caller, host, record),
      caller.call("agent.diff", { project, name }).catch((error: unknown) => error as Error),
    ]);
    options.signal?.throwIfAborted();
    return {
      record,
      markdown: conversationMarkdown(record, events),
      pending: pendingFromLog(record, events),
      // Paths on the host: their text is asked of it when a preview is shown (readHostFile).
      files: diff instanceof Error ? [] : previewFiles(record.worktree, diff.files.map(changedFile)),
      diffMarkdown:
        diff instanceof Error
          ? `*No diff from ${host}: ${describeError(diff)}*`
          : diff.files.length === 0
            ? `*No changes since ${diff.base.slice(0, 8)}.*`
            : numberedDiff(diff.patch),
    };
  });
}

/**
 * A host agent's chat as the detail shows it (its last entries): the end of the local copy, read
 * as a stream and never whole (a copy may hold hundreds of MB), then the rest read from the host
 * by offset.
 */
async function hostChat(caller: Caller, host: string, record: AgentRecord): Promise<AgentEvent[]> {
  const { project, name } = record;
  const tail = await copyTail(mirrorFile(host, project, name));
  let offset = tail.end;
  let events = parseLines(tail.lines);
  for (let reads = 0; reads < MAX_READS; reads++) {
    const read = await caller.call("chat.read", { project, name, offset });
    if (read.size < offset) {
      // The host's log was replaced since the copy was made (a discard, a new agent of that name).
      [offset, events] = [0, []];
      continue;
    }
    events = [...events, ...parseLines(read.lines)];
    if (read.next <= offset || read.next >= read.size) break;
    offset = read.next;
  }
  return events;
}

/** What of a copy the detail reads: its last COPY_TAIL_BYTES, whole lines only. */
const COPY_TAIL_BYTES = 4 * 1024 * 1024;

/** The whole lines of the copy's last COPY_TAIL_BYTES, and where its whole lines end. */
export async function copyTail(file: string): Promise<{ lines: string[]; end: number }> {
  const handle = await fs.open(file, "r").catch(() => undefined);
  if (!handle) return { lines: [], end: 0 };
  try {
    const { size } = await handle.stat();
    const start = Math.max(0, size - COPY_TAIL_BYTES);
    const bytes = Buffer.alloc(size - start);
    await handle.read(bytes, 0, bytes.length, start);
    const wholeEnd = bytes.lastIndexOf(0x0a) + 1;
    // Begun inside a line: that line's start is before the tail, and it is left out.
    const first = start === 0 ? 0 : bytes.indexOf(0x0a) + 1;
    const text = first < wholeEnd ? bytes.subarray(first, wholeEnd).toString("utf8") : "";
    return { lines: splitJsonl(text), end: start + wholeEnd };
  } finally {
    await handle.close();
  }
}

/** At most this many reads of 1 MB for one detail: a log with no copy yet, read from the host. */
const MAX_READS = 8;

function parseLines(lines: string[]): AgentEvent[] {
  return lines.flatMap((line) => parseEventLine(line) ?? []);
}

/** The text of a changed file in a host agent's worktree, for the preview (undefined when it has none to show). */
export async function readHostFile(host: string, record: AgentRecord, relative: string): Promise<string | undefined> {
  const { project, name } = record;
  const answer = await withClient((client) =>
    client.on(host, DETAIL_MS).call("agent.file", { project, name, path: relative }),
  );
  return answer.text;
}

/** A host agent's draft (its message box), as the host's companion keeps it. */
export async function readHostDraft(host: string, project: string, name: string): Promise<string | undefined> {
  return (await withClient((client) => client.on(host, DETAIL_MS).call("draft.read", { project, name }))).text;
}

const CHANGES: readonly ChangedFile["status"][] = ["added", "modified", "deleted", "renamed"];

/** A file of a host's diff as this machine's diff gives it. */
function changedFile(file: { path: string; status: string; additions: number; deletions: number; binary?: unknown }) {
  const status = CHANGES.find((s) => s === file.status) ?? "modified";
  return { ...file, status, binary: file.binary === true } satisfies ChangedFile;
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
