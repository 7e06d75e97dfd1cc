import fs from "node:fs/promises";
import { readAgent, readChat } from "../records/records.js";
import { pendingFromLog } from "../agents/approvals.js";
import { asSeen, runningCompanionPid } from "../agents/orphans.js";
import { isInsideReal } from "../foundation/inside.js";
import { diffWorktree } from "../git/diff.js";
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

/**
 * A changed file's text for the preview (undefined when unreadable, over 256 KB, or a link that
 * leads out of `worktree`: an agent's `notes.md` can be a link to `~/.ssh/id_ed25519`).
 */
export async function readPreviewText(file: string, worktree: string): Promise<string | undefined> {
  const real = await fs.realpath(file).catch(() => undefined);
  if (real === undefined || !(await isInsideReal(worktree, real))) return undefined;
  const stat = await fs.stat(real).catch(() => undefined);
  if (!stat?.isFile() || stat.size > 256 * 1024) return undefined;
  return fs.readFile(real, "utf8").catch(() => undefined);
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
