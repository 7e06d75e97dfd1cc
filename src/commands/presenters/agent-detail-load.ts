import fs from "node:fs/promises";
import { readAgent, readChat } from "../../core/records/records.js";
import { pendingFromLog } from "../../core/agents/approvals.js";
import { asSeen, runningCompanionPid } from "../../core/agents/orphans.js";
import { isInsideReal } from "../../core/foundation/inside.js";
import { diffWorktree } from "../../core/git/diff.js";
import {
  conversationMarkdown,
  numberedDiff,
  previewFiles,
  type AgentDetailData,
  type PreviewFile,
} from "./agent-detail.js";

/**
 * Reads one agent's record, conversation and diff for the Agents view's detail. The diff runs git
 * several times, so the view asks for the selected agent only, and `signal` ends a read it no
 * longer needs (the next poll, another selection, the view closed).
 */
export async function loadAgentDetail(
  project: string,
  name: string,
  options: { signal?: AbortSignal } = {},
): Promise<AgentDetailData> {
  const { signal } = options;
  const record = asSeen(await readAgent(project, name), (await runningCompanionPid()) !== undefined);
  const chat = await readChat(project, name);
  signal?.throwIfAborted();
  const hasWorktree = await fs.stat(record.worktree).then(
    (s) => s.isDirectory(),
    () => false,
  );
  const diff = hasWorktree
    ? await diffWorktree({ worktree: record.worktree, baseCommit: record.base, signal })
    : undefined;
  return {
    record,
    markdown: conversationMarkdown(record, chat.entries),
    pending: pendingFromLog(record, chat.entries),
    files: diff ? await refuseLinksOut(record.worktree, previewFiles(record.worktree, diff.files)) : [],
    diffMarkdown: !diff
      ? "*The worktree was discarded.*"
      : diff.files.length === 0
        ? `*No changes since ${record.base.slice(0, 8)}.*`
        : numberedDiff(diff.patch),
  };
}

/** The changed files that are links leading out of the worktree become "outside": not read, shown or opened. */
async function refuseLinksOut(worktree: string, files: PreviewFile[]): Promise<PreviewFile[]> {
  return Promise.all(
    files.map(async (file) => {
      if (file.status === "deleted") return file;
      const real = await fs.realpath(file.absolute).catch(() => undefined);
      if (real === undefined || (await isInsideReal(worktree, real))) return file;
      return { ...file, kind: "outside" as const, leadsTo: real };
    }),
  );
}
