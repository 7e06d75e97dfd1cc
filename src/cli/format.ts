import type { AgentEvent } from "../core/foundation/events.js";
import { renderReview } from "./review-format.js";
import { renderMemoryChange } from "./memory-format.js";
import type { AgentRecord } from "../core/foundation/model.js";
import { shellQuote } from "../core/foundation/shell-quote.js";
import { visible } from "../core/foundation/visible.js";
import { describeToolInput } from "../core/foundation/tool-input.js";
import { clockTime, resetsText } from "../core/foundation/time-words.js";
import { windowText } from "../core/quota/quota-window.js";
import { cut, fitColumns, GAP, pad, screenWidth, textLength, wrap } from "./fit.js";

/** Plain-text rendering for the terminal. The core returns data; only this file decides looks. */

export function elapsed(fromIso: string | undefined, now = Date.now()): string {
  if (!fromIso) return "-";
  const seconds = Math.max(0, Math.round((now - Date.parse(fromIso)) / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, "0")}s`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h${String(minutes % 60).padStart(2, "0")}m`;
  return `${Math.floor(hours / 24)}d`;
}

/**
 * A fixed-width table that fits the screen (fit.ts says how wide): the widest columns are cut
 * with `…` until a row fits, and a row still too wide is cut at the edge. A cell is one line: a
 * break or a tab in one is spelled out. `indent` starts every line, and counts in the width.
 */
export function table(
  header: string[],
  given: string[][],
  { indent = "", width = screenWidth() }: { indent?: string; width?: number } = {},
): string {
  const rows = given.map((row) => row.map((cell) => visible(cell, "line")));
  const room = width - textLength(indent);
  const natural = header.map((h, i) => Math.max(textLength(h), ...rows.map((r) => textLength(r[i] ?? ""))));
  const widths = fitColumns(natural, header, room);
  const line = (cells: string[]) =>
    cut(
      indent +
        cells
          .map((c, i) => (i === cells.length - 1 ? cut(c, widths[i]!) : pad(cut(c, widths[i]!), widths[i]!)))
          .join(" ".repeat(GAP))
          .trimEnd(),
      width,
    );
  return [line(header), ...rows.map(line)].join("\n");
}

/**
 * "Not installed: Gemini CLI (login work), OpenCode, Pi": the CLIs that are not installed, folded
 * into one line (wrapped to the screen) rather than a row each; an added login is named, so it is
 * not lost from sight. Empty when every CLI is installed.
 */
export function notInstalledLines(
  clis: { name: string; logins?: string[] }[],
  { indent = "", width = screenWidth() }: { indent?: string; width?: number } = {},
): string[] {
  if (clis.length === 0) return [];
  const names = clis.map(({ name, logins = [] }) =>
    logins.length === 0 ? name : `${name} (${logins.length === 1 ? "login" : "logins"} ${logins.join(", ")})`,
  );
  // `offrun harnesses` prints each one's install command (its installHint).
  return wrap(`Not installed: ${names.join(", ")} (offrun harnesses says how to install each)`, width, indent);
}

export function agentRows(agents: AgentRecord[]): string[][] {
  return agents.map((a) => [
    a.name,
    a.discardedAt
      ? "discarded"
      : a.resume
        ? `${a.status} · resumes ${shortTime(a.resume.at)} on ${a.resume.account}`
        : a.status,
    elapsed(a.status === "working" || a.status === "needs-you" ? a.turnStartedAt : a.createdAt),
    a.harness,
    a.account,
    a.mode,
    a.branchDeleted ? `${a.branch} (deleted)` : a.branch,
  ]);
}

/** When a waiting agent goes on, as every face writes a time (core/foundation/time-words.ts). */
function shortTime(iso: string): string {
  return clockTime(iso, Date.now());
}

export const AGENT_HEADER = ["AGENT", "STATUS", "ELAPSED", "HARNESS", "LOGIN", "MODE", "BRANCH"];

function truncate(text: string, max: number): string {
  const oneLine = text.replace(/\s+/g, " ").trim();
  return oneLine.length > max ? `${oneLine.slice(0, max - 1)}…` : oneLine;
}

/** One event as a line (or a few) of the conversation. */
export function renderEvent(event: AgentEvent): string | undefined {
  switch (event.type) {
    case "user_message":
      return `\n› you (turn ${event.turn})\n${event.text}`;
    case "turn_start":
      return `  [${event.harness} · ${event.account} · ${event.mode}${event.resume ? " · resumed" : ""}${event.sandbox ? " · sandboxed" : ""}]`;
    case "session":
      return undefined;
    case "text":
      return `\n‹ agent\n${event.text}`;
    case "tool_call":
      return `  ⚙ ${event.name} ${describeToolInput(event.input, 80)}`;
    case "tool_result":
      return event.isError ? `    ✗ ${truncate(event.output, 160)}` : undefined;
    case "approval_request":
      return `  ? needs approval${event.id ? ` [${event.id}]` : ""}: ${event.tool} ${describeToolInput(event.input, 80)}`;
    case "denial":
      return `  ⊘ refused: ${event.tool} ${describeToolInput(event.input, 80)}`;
    case "sandbox_refusal":
      return `  ⊘ sandbox refused ${describeRefusal(event)}`;
    case "question":
      return `  ? ${event.id ? `[${event.id}] ` : ""}${event.text}`;
    case "decision":
      return `  ${decisionMark(event)} [${event.id}] ${describeDecision(event)}`;
    case "usage":
      return `  tokens: ${event.inputTokens} in, ${event.outputTokens} out${event.costUsd !== undefined ? `, $${event.costUsd.toFixed(4)}` : ""}`;
    case "quota":
      return `  quota: ${event.windows.map((w) => windowText(w, Date.now())).join(", ")}`;
    case "limit_hit":
      return `  ⛔ limit: ${event.message}${event.resetsAt ? ` (${resetsText(event.resetsAt, Date.now())})` : ""}`;
    case "retry":
      return `  ↻ retry ${event.attempt}: ${event.message}`;
    case "error":
      return `  ✗ ${event.kind}: ${event.message}`;
    case "notice":
      return `  ${event.level === "warning" ? "⚠" : "·"} ${event.message}`;
    case "account_switch":
      return `  ⇄ moved from login ${event.from} to ${event.to}: ${event.reason}`;
    case "reset_wait":
      return `  ⏳ ${event.message}`;
    case "handoff":
      return `  ⇢ handed off from ${event.fromHarness} to ${event.toHarness} (login ${event.account})`;
    case "review":
      return renderReview(event);
    case "memory_change":
      return renderMemoryChange(event);
    case "turn_end":
      return `  — turn ${event.turn} ${event.outcome}${event.reason ? `: ${event.reason}` : ""}`;
    default: {
      const unreachable: never = event;
      return String(unreachable);
    }
  }
}

type DecisionEvent = Extract<AgentEvent, { type: "decision" }>;

function decisionMark(event: DecisionEvent): string {
  return event.decision === "deny" ? "✗" : "✓";
}

function describeDecision(event: DecisionEvent): string {
  const who = event.by === "always_allow" ? "allowed by an alwaysAllow rule" : "you";
  switch (event.decision) {
    case "allow":
      return event.by === "always_allow" ? who : `allowed by you${event.always ? " (always)" : ""}`;
    case "deny":
      return `denied by you${event.reason ? `: ${event.reason}` : ""}`;
    case "answer":
      return `answered: ${truncate(event.text ?? "", 160)}`;
  }
}

/** What `offrun show` prints for each request that waits for the user: what it is, and the command to type. */
export function renderPending(name: string, pending: AgentEvent[], several = pending.length > 1): string[] {
  return pending.flatMap((event) => {
    const pick = several && "id" in event && event.id ? ` --request ${shellQuote(event.id)}` : "";
    const agent = shellQuote(name);
    if (event.type === "approval_request") {
      return [
        `  ⏸ waiting for your approval [${event.id}]: ${event.text ?? `${event.tool} ${describeToolInput(event.input, 80)}`}`,
        `      tool: ${event.tool}  ${describeToolInput(event.input, 80)}`,
        `      allow:  offrun approve ${agent}${pick}${event.alwaysKey ? `   (add --always to allow ${event.alwaysKey} from now on)` : ""}`,
        `      deny:   offrun approve ${agent}${pick} --deny --reason "..."`,
      ];
    }
    if (event.type === "question") {
      return [
        `  ⏸ waiting for your answer [${event.id ?? "?"}]: ${event.text}`,
        `      answer: offrun answer ${agent}${pick} "your answer"`,
      ];
    }
    return [];
  });
}

/** "a write to /etc/hosts": what the sandbox kept the agent from, in words. */
export function describeRefusal(event: {
  kind: "write" | "read" | "network";
  target: string;
  setting?: string;
  repository?: boolean;
}): string {
  switch (event.kind) {
    case "write":
      return `a write to ${event.target} (outside the agent's folders)`;
    case "read":
      return `a read of ${event.target} (protected)`;
    case "network":
      if (event.setting && event.repository) {
        return `a connection to ${event.target}, named by ${event.setting}: a file of the repository's opens no host; set the gateway in the login's own settings, or on the login (\`offrun logins add ... --env ANTHROPIC_BASE_URL=...\`)`;
      }
      return event.setting
        ? `a connection to ${event.target}, the login's own API (from ${event.setting})`
        : `a connection to ${event.target} (not on the allowed hosts; add it to sandbox.allowHosts)`;
  }
}
