import path from "node:path";
import type { ChangedFile } from "../../core/git/diff.js";
import type { AgentEvent } from "../../core/foundation/events.js";
import type { AgentRecord } from "../../core/foundation/model.js";
import { visible } from "../../core/foundation/visible.js";
import { describeToolInput } from "../../core/foundation/tool-input.js";
import { inertMarkdown } from "./inert-markdown.js";

/** The Agents view's detail: the conversation as markdown, the diff with line numbers, the preview. */

/** Longest text kept per tool output or message in the detail (the full log stays on disk). */
const MAX_BLOCK = 4_000;

function clip(text: string): string {
  return text.length > MAX_BLOCK ? `${text.slice(0, MAX_BLOCK)}\n… (${text.length - MAX_BLOCK} more characters)` : text;
}

function quoteBlock(text: string): string {
  return clip(text)
    .split("\n")
    .map((line) => `> ${line}`)
    .join("\n");
}

/** A fence that the text itself cannot close. */
function fence(text: string, lang = ""): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = "`".repeat(longest + 1);
  return `${ticks}${lang}\n${text}\n${ticks}`;
}

/** One event as markdown, or undefined for events the conversation does not show. */
export function eventMarkdown(event: AgentEvent): string | undefined {
  switch (event.type) {
    case "user_message":
      return `**You** · turn ${event.turn}\n\n${quoteBlock(event.text)}`;
    case "text":
      return clip(event.text);
    case "tool_call":
      return `\`${event.name}\` ${describeToolInput(event.input).replace(/`/g, "'")}`;
    case "tool_result":
      return event.isError ? `✗ ${fence(clip(event.output))}` : undefined;
    case "approval_request":
      return `⏸ **Needs approval**: ${event.text ?? `${event.tool} ${describeToolInput(event.input)}`}`;
    case "question":
      return `⏸ **Question**: ${event.text}`;
    case "denial":
      return `⊘ Refused by the CLI: \`${event.tool}\` ${describeToolInput(event.input).replace(/`/g, "'")}`;
    case "sandbox_refusal":
      return `⊘ **Sandbox refused** ${event.kind === "network" ? "a connection to" : event.kind === "read" ? "a read of" : "a write to"} \`${event.target.replace(/`/g, "'")}\`${refusalSetting(event)}`;
    case "decision":
      return `✓ ${event.decision === "deny" ? "Denied" : event.decision === "answer" ? `Answered: ${event.text ?? ""}` : "Allowed"}${event.by === "always_allow" ? " (always-allow rule)" : ""}`;
    case "limit_hit":
      return `⛔ **Limit reached**: ${event.message}`;
    case "error":
      return `✗ **${event.kind.replace(/_/g, " ")}**: ${event.message}`;
    case "notice":
      return `${event.level === "warning" ? "⚠" : "·"} ${event.message}`;
    case "account_switch":
      return `⇄ Moved from login ${event.from} to ${event.to}: ${event.reason}`;
    case "reset_wait":
      return `⏳ ${event.message}`;
    case "handoff":
      return `⇢ Handed off from ${event.fromHarness} to ${event.toHarness} (login ${event.account})`;
    case "memory_change":
      return `✎ **Memory** [${event.id}] \`${event.file}\`${event.who === "own" ? "" : ` (${event.who === "other_agent" ? `another agent's memory: ${event.owner ?? "?"}` : event.who === "conventions" ? "conventions.md, shared by every agent" : "a shared memory file"})`}\n\n${fence(event.diff.trimEnd(), "diff")}`;
    case "review": {
      const head = `🔍 **Review** by ${event.reviewer.harness} · ${event.reviewer.account}: ${event.outcome === "completed" ? (event.verdict ?? "").replace("_", " ") : event.outcome === "malformed" ? "unreadable, no verdict" : "failed"}`;
      const findings = event.findings.map(
        (f) =>
          `- **${f.severity}** \`${f.file}${f.line === undefined ? "" : `:${f.line}`}\`${f.onDiff ? "" : " (not in the diff)"}: ${f.message}`,
      );
      return [head, event.summary ?? event.reason ?? "", ...findings].filter(Boolean).join("\n\n");
    }
    case "turn_end":
      return event.outcome === "completed"
        ? undefined
        : `— Turn ${event.turn} ${event.outcome}${event.reason ? `: ${event.reason}` : ""}`;
    case "retry":
      return `↻ Retry ${event.attempt}: ${event.message}`;
    case "turn_start":
    case "session":
    case "usage":
    case "quota":
      return undefined;
    default: {
      const unreachable: never = event;
      return String(unreachable);
    }
  }
}

/** The conversation, newest at the bottom; long logs keep their last `maxEvents` shown events. */
export function conversationMarkdown(record: AgentRecord, events: AgentEvent[], maxEvents = 200): string {
  const blocks = events.map(eventMarkdown).filter((b): b is string => b !== undefined);
  const shown = blocks.slice(-maxEvents);
  const head = [`# ${record.name}`, "", quoteBlock(record.task.split("\n")[0] ?? "")];
  if (shown.length < blocks.length) head.push("", `*${blocks.length - shown.length} earlier entries not shown.*`);
  if (record.lastError) head.push("", `⚠ ${record.lastError}`);
  // What the agent sent is what the user reads, here as in the terminal: a bidi override or a
  // control character in its text must not reorder or hide the rest.
  // Nor may an image in it be fetched as the conversation is shown (inert-markdown.ts).
  return inertMarkdown(visible([...head, "", ...shown.flatMap((b) => [b, ""])].join("\n").trimEnd()));
}

/**
 * What waits on the user (an approval, a question), as markdown to put above the conversation: the
 * detail pane opens at its top, and a request at the bottom of a long conversation is off screen.
 * The command is whole, in a code block: it is what Approve allows. Empty when nothing waits.
 */
export function waitingMarkdown(pending: AgentEvent[]): string {
  const blocks = pending.flatMap((event) => {
    if (event.type === "question") return [`**Question**\n\n${quoteBlock(event.text)}`];
    if (event.type !== "approval_request") return [];
    const input = event.input as { command?: unknown } | undefined;
    const whole = typeof input?.command === "string" ? input.command : (event.text ?? describeToolInput(event.input));
    return [`**Needs approval**: \`${event.tool}\`\n\n${fence(whole)}`];
  });
  if (blocks.length === 0) return "";
  return visible(["## Waiting for You", "", ...blocks.flatMap((b) => [b, ""]), "---"].join("\n"));
}

/** The detail pane: what waits on the user first, then the conversation. */
export function detailMarkdown(data: Pick<AgentDetailData, "markdown" | "pending">): string {
  const waiting = waitingMarkdown(data.pending);
  return waiting ? `${waiting}\n\n${data.markdown}` : data.markdown;
}

/**
 * A unified diff with old and new line numbers in a gutter, as a markdown code block per file.
 * git's own `@@ -a,b +c,d @@` headers give the starting numbers.
 */
export function numberedDiff(patch: string, maxLines = 2_000): string {
  const out: string[] = [];
  let oldLine = 0;
  let newLine = 0;
  let count = 0;
  let open = false;
  const close = () => {
    if (open) out.push("```");
    open = false;
  };
  for (const line of patch.split("\n")) {
    if (count++ >= maxLines) {
      close();
      out.push(`*Diff cut at ${maxLines} lines; \`offrun diff\` shows all of it.*`);
      return visible(out.join("\n"));
    }
    if (line.startsWith("diff --git ")) {
      close();
      const file = line.split(" b/").at(-1) ?? line;
      out.push(`### ${file}`, "```diff");
      open = true;
      continue;
    }
    if (
      /^(index |--- |\+\+\+ |new file mode|deleted file mode|similarity index|rename (from|to) |old mode|new mode)/.test(
        line,
      )
    )
      continue;
    const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@(.*)$/.exec(line);
    if (hunk) {
      oldLine = Number(hunk[1]);
      newLine = Number(hunk[2]);
      out.push(`@@${hunk[3] ?? ""}`);
      continue;
    }
    if (line.startsWith("Binary files")) {
      out.push(line);
      continue;
    }
    const gutter = (a: number | "", b: number | "") => `${String(a).padStart(5)} ${String(b).padStart(5)} `;
    if (line.startsWith("+")) out.push(`+${gutter("", newLine++)}${line.slice(1)}`);
    else if (line.startsWith("-")) out.push(`-${gutter(oldLine++, "")}${line.slice(1)}`);
    else if (line.startsWith(" ")) out.push(` ${gutter(oldLine++, newLine++)}${line.slice(1)}`);
    else if (line.startsWith("\\")) out.push(line);
  }
  close();
  return visible(out.join("\n"));
}

/** "outside": a link that leads out of the worktree, neither read nor opened. */
export type PreviewKind = "markdown" | "image" | "pdf" | "other" | "outside";

const IMAGE = new Set([".png", ".jpg", ".jpeg", ".gif", ".webp", ".svg", ".bmp", ".tiff", ".heic"]);

export function previewKind(file: string): PreviewKind {
  const ext = path.extname(file).toLowerCase();
  if (ext === ".md" || ext === ".markdown" || ext === ".mdx") return "markdown";
  if (IMAGE.has(ext)) return "image";
  if (ext === ".pdf") return "pdf";
  return "other";
}

export interface PreviewFile {
  path: string;
  absolute: string;
  kind: PreviewKind;
  status: ChangedFile["status"];
  /** "+12 −3", or "binary". */
  stat: string;
  /** Where a link of kind "outside" leads. */
  leadsTo?: string;
}

/** The changed files with what each can be previewed as; deleted files have nothing to open. */
export function previewFiles(worktree: string, files: ChangedFile[]): PreviewFile[] {
  return files.map((file) => ({
    path: file.path,
    absolute: path.join(worktree, file.path),
    kind: file.status === "deleted" ? "other" : previewKind(file.path),
    status: file.status,
    stat: file.binary ? "binary" : `+${file.additions} −${file.deletions}`,
  }));
}

/**
 * Markdown for one file of the preview: rendered markdown, an inline image, or where it is. A
 * host's file (`host`) arrives as text only: an image or a PDF there is named, not shown.
 */
export function filePreviewMarkdown(file: PreviewFile, content: string | undefined, host?: string): string {
  switch (file.kind) {
    case "markdown":
      return content === undefined ? `*${file.path} could not be read.*` : inertMarkdown(visible(clip(content)));
    case "image":
      if (host) return `**${file.path}** is an image on ${host}: open it there.`;
      return `![${file.path}](${encodeURI(`file://${file.absolute}`)})`;
    case "pdf":
      if (host) return `**${file.path}** is a PDF on ${host}: open it there.`;
      return `**${file.path}** is a PDF: press Quick Look (⌘Y) to read it.`;
    case "other":
      return content === undefined ? `**${file.path}** (${file.status})` : visible(fence(clip(content)));
    case "outside":
      return `**${file.path}** is a link to ${visible(file.leadsTo ?? "a file", "line")}, outside the worktree: it is not shown.`;
  }
}

/** The dev-server URL of an agent's worktree: every worktree has its own stable port. */
export function devServerUrl(record: Pick<AgentRecord, "port">): string {
  return `http://localhost:${record.port}`;
}

export interface AgentDetailData {
  record: AgentRecord;
  markdown: string;
  /** What the agent waits for (approvals, questions), from the log. */
  pending: AgentEvent[];
  files: PreviewFile[];
  diffMarkdown: string;
}

/** Where a refused host of the login's came from, for the detail pane. */
function refusalSetting(event: { setting?: string; repository?: boolean }): string {
  if (!event.setting) return "";
  const setting = `\`${event.setting.replace(/`/g, "'")}\``;
  return event.repository
    ? `, named by ${setting}: a file of the repository's opens no host`
    : `, the login's own API (from ${setting})`;
}
