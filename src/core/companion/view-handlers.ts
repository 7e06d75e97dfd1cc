import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pendingFromLog } from "../agents/approvals.js";
import { agentDiff } from "../agents/branch-actions.js";
import { asSeen, listAgentsAsSeen } from "../agents/orphans.js";
import { readDraft } from "../records/draft.js";
import { readAgent, readChat } from "../records/records.js";
import { projectPaths } from "../foundation/paths.js";
import { knownProjects } from "../foundation/project.js";
import { findRepoRoot } from "../git/repo.js";
import { OffrunError } from "../foundation/errors.js";
import { quotaReport } from "../logins/quota-report.js";
import { readPreviewText } from "../foundation/inside.js";
import { PROTOCOL_VERSION, type AgentsListed, type AgentShown } from "../protocol/protocol-views.js";
import type { ChangeBeacon } from "./change-beacon.js";
import type { Handlers } from "../protocol/protocol.js";
import type { viewMethods } from "../protocol/protocol-views.js";

/**
 * The companion's answers to the view requests (protocol-views.ts): the same reads the CLI makes
 * of its own files, for a peer on another machine. The companion is running by definition, so a
 * record is shown as it is.
 */
export function viewHandlers(version: string, changes: ChangeBeacon): Handlers<keyof typeof viewMethods> {
  return {
    hello: async () => ({ protocol: PROTOCOL_VERSION, version, hostname: os.hostname() }),
    "agents.list": async (p) => listEveryAgent(p.project),
    "agent.show": async (p) => showAgent(p.project, p.name),
    "agent.diff": async (p) => {
      const result = await agentDiff(p.project, p.name);
      return { files: result.files, patch: result.patch, base: result.record.base };
    },
    "agent.file": async (p) => readWorktreeFile(p.project, p.name, p.path),
    "draft.read": async (p) => {
      const root = await findRepoRoot(p.project);
      await readAgent(root, p.name);
      const text = await readDraft(root, p.name);
      return text === undefined ? {} : { text };
    },
    "chat.read": async (p) => {
      const root = await findRepoRoot(p.project);
      await readAgent(root, p.name);
      const file = projectPaths(root).chat(p.name);
      const size = (await fs.stat(file).catch(() => undefined))?.size ?? 0;
      if (p.offset > size) return { lines: [], next: 0, size };
      let read = await readLinesFrom(file, p.offset, Math.min(size, p.offset + p.maxBytes));
      // One line longer than the read: take it whole rather than never getting past it.
      if (read.lines.length === 0 && p.offset + p.maxBytes < size) read = await readLinesFrom(file, p.offset, size);
      return { lines: read.lines, next: read.next, size };
    },
    "quota.list": async () => ({ logins: (await quotaReport()).rows }),
    "changes.wait": async (p) => ({ token: await changes.next(p.after, p.timeoutMs) }),
  };
}

async function listEveryAgent(project: string | undefined): Promise<AgentsListed> {
  const roots = project ? [await findRepoRoot(project)] : await knownProjects();
  const projects = await Promise.all(
    roots.map(async (root) => {
      const listing = await listAgentsAsSeen(root, true);
      const agents = await Promise.all(
        listing.agents.map(async (record) => ({
          record,
          chatBytes: (await fs.stat(projectPaths(root).chat(record.name)).catch(() => undefined))?.size ?? 0,
        })),
      );
      return { root, agents, unreadable: listing.unreadable };
    }),
  );
  return { hostname: os.hostname(), projects };
}

async function showAgent(project: string, name: string): Promise<AgentShown> {
  const root = await findRepoRoot(project);
  const record = asSeen(await readAgent(root, name), true);
  const chat = await readChat(root, name);
  const setupLog = projectPaths(root).log(name);
  const hasSetupLog = (await fs.stat(setupLog).catch(() => undefined))?.size ?? 0;
  return {
    agent: record,
    pending: pendingFromLog(record, chat.entries),
    events: chat.entries,
    corruptLines: chat.corrupt.length,
    ...(hasSetupLog > 0 ? { setupLog } : {}),
  };
}

/**
 * A file of an agent's worktree for a peer's preview. The path is checked after symlinks are
 * resolved: a link in the worktree to a file elsewhere is refused, not followed.
 */
async function readWorktreeFile(project: string, name: string, relative: string) {
  const record = await readAgent(await findRepoRoot(project), name);
  const worktree = await fs.realpath(record.worktree).catch(() => undefined);
  if (!worktree) throw new OffrunError("not_found", `${name} has no worktree any more (it was discarded).`);
  const real = await fs.realpath(path.join(worktree, relative)).catch(() => undefined);
  if (!real) return { size: 0 };
  if (!real.startsWith(worktree + path.sep)) {
    throw new OffrunError("invalid_input", `${relative} leads outside ${name}'s worktree: it is not shown.`);
  }
  const size = (await fs.stat(real)).size;
  const text = await readPreviewText(real, worktree);
  return { size, ...(text === undefined ? {} : { text }) };
}

/** The complete lines between `offset` and `end`; `next` is where the last of them ended. */
async function readLinesFrom(file: string, offset: number, end: number): Promise<{ lines: string[]; next: number }> {
  const handle = await fs.open(file, "r");
  try {
    const buffer = Buffer.alloc(end - offset);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, offset);
    const data = buffer.subarray(0, bytesRead);
    const last = data.lastIndexOf(0x0a);
    if (last === -1) return { lines: [], next: offset };
    const lines = data
      .subarray(0, last)
      .toString("utf8")
      .split("\n")
      .filter((line) => line !== "");
    return { lines, next: offset + last + 1 };
  } finally {
    await handle.close();
  }
}
