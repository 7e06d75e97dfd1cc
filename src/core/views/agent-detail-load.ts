import fs from "node:fs/promises";
import { readAgent, readChat } from "../agents/records.js";
import { pendingFromLog } from "../agents/approvals.js";
import { asSeen, runningCompanionPid } from "../agents/orphans.js";
import { diffWorktree } from "../git/diff.js";
import { conversationMarkdown, numberedDiff, previewFiles, type AgentDetailData } from "./agent-detail.js";

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
    files: diff ? previewFiles(record.worktree, diff.files) : [],
    diffMarkdown: !diff
      ? "*The worktree was discarded.*"
      : diff.files.length === 0
        ? `*No changes since ${record.base.slice(0, 8)}.*`
        : numberedDiff(diff.patch),
  };
}

/** A changed file's text for the preview (undefined when unreadable or over 256 KB). */
export async function readPreviewText(file: string): Promise<string | undefined> {
  const stat = await fs.stat(file).catch(() => undefined);
  if (!stat?.isFile() || stat.size > 256 * 1024) return undefined;
  return fs.readFile(file, "utf8").catch(() => undefined);
}
