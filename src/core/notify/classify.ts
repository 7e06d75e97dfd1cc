import path from "node:path";
import type { AgentEvent } from "../foundation/events.js";
import { describeToolInput } from "../foundation/tool-input.js";
import { resetsText } from "../foundation/time-words.js";

export const NOTIFICATION_KINDS = [
  "finished",
  "failed",
  "needs-approval",
  "question",
  "limit",
  "account-switch",
  "resumed",
] as const;
/** What the user is told about; each kind can be switched off in ~/.offrun/config.json. */
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

/** The facts about an agent a notification names (a subset of AgentRecord, so external sessions can fill it too). */
export interface NotifiedAgent {
  harness: string;
  name: string;
  project: string;
  /** The machine it runs on, when not this one (core/remote). */
  host?: string;
}

/** One notification, before dedupe, rate limit and quiet hours. */
export interface AgentNotification {
  kind: NotificationKind;
  agent: string;
  project: string;
  /** Another machine's agent (core/remote): `project` is a path there. */
  host?: string;
  turn: number;
  /** The approval or question id, when the event names one: two requests in one turn are two notifications. */
  requestId?: string;
  /** The review's id, for a finished review: its notification opens the findings (deeplink.ts). */
  review?: string;
  title: string;
  body: string;
  at: string;
}

/** Bodies longer than this are cut: notification centres show a few lines at most. */
export const BODY_MAX = 200;

export function cut(text: string, max = BODY_MAX): string {
  const oneLine = text.replace(/\s+/g, " ").trim();
  return oneLine.length > max ? `${oneLine.slice(0, max - 1)}…` : oneLine;
}

/**
 * Turns one event of an agent into a notification, or undefined for events nobody needs to
 * hear about (text, tool calls, usage, sub-agent chatter, a cancel the user asked for).
 * `lastText` is the agent's last words in this turn: the body of a finished/failed turn.
 */
export function classifyEvent(
  event: AgentEvent,
  agent: NotifiedAgent,
  lastText?: string,
): AgentNotification | undefined {
  const what = describe(event, lastText);
  if (!what) return undefined;
  return {
    kind: what.kind,
    agent: agent.name,
    project: agent.project,
    ...(agent.host ? { host: agent.host } : {}),
    turn: event.turn,
    ...(what.requestId ? { requestId: what.requestId } : {}),
    ...(event.type === "review" ? { review: event.id } : {}),
    // Which agent, first: with several on one project, "claude · shop: finished" did not say whose turn it was.
    title: `${bareName(agent)} (${agent.harness}) · ${path.basename(agent.project)}${agent.host ? ` on ${agent.host}` : ""}: ${what.headline}`,
    body: cut(what.body || agent.name),
    at: event.at,
  };
}

/** A host's agent is named "devbox:cut" where it is followed; the title says "on devbox" already. */
function bareName(agent: NotifiedAgent): string {
  return agent.host && agent.name.startsWith(`${agent.host}:`) ? agent.name.slice(agent.host.length + 1) : agent.name;
}

interface Description {
  kind: NotificationKind;
  headline: string;
  body: string;
  requestId?: string;
}

function describe(event: AgentEvent, lastText: string | undefined): Description | undefined {
  switch (event.type) {
    case "turn_end":
      if (event.outcome === "completed") return { kind: "finished", headline: "finished", body: lastText ?? "" };
      // A failed turn says why; the agent's last words are kept when the reason is missing.
      if (event.outcome === "failed")
        return { kind: "failed", headline: "failed", body: event.reason ?? lastText ?? "" };
      // limited is told by its limit_hit; cancelled was the user's own doing; interrupted is told on recovery.
      return undefined;
    case "approval_request":
      return {
        kind: "needs-approval",
        headline: `needs approval (${event.tool})`,
        body: describeToolInput(event.input, BODY_MAX) || event.text || event.tool,
        requestId: event.id,
      };
    case "question":
      return {
        kind: "question",
        headline: "asks a question",
        body: event.text,
        ...(event.id ? { requestId: event.id } : {}),
      };
    case "limit_hit": {
      const reset = event.resetsAt ? ` (${resetsText(event.resetsAt, Date.now())})` : "";
      return { kind: "limit", headline: `hit a limit${reset}`, body: event.message };
    }
    case "review":
      // A finished review is news like a finished turn; one that could not run says why.
      return event.outcome === "failed"
        ? { kind: "failed", headline: "review failed", body: event.reason ?? "" }
        : {
            kind: "finished",
            headline: `reviewed: ${event.verdict?.replace("_", " ") ?? "unreadable review"}`,
            body: event.summary ?? event.reason ?? "",
          };
    case "account_switch":
      return {
        kind: "account-switch",
        headline: `moved to login ${event.to}`,
        body: `from ${event.from}: ${event.reason}`,
      };
    case "reset_wait":
      // The wait itself follows a limit_hit the user was already told of; going on is news.
      return event.phase === "resumed"
        ? { kind: "resumed", headline: `went on after the reset (login ${event.account})`, body: event.message }
        : event.phase === "gave_up"
          ? { kind: "limit", headline: "still limited after the reset", body: event.message }
          : undefined;
    case "user_message":
    case "turn_start":
    case "session":
    case "text":
    case "tool_call":
    case "tool_result":
    case "denial":
    case "sandbox_refusal":
    case "decision":
    case "usage":
    case "quota":
    case "retry":
    case "error":
    case "notice":
    case "handoff":
    case "memory_change": // shown in the chat and `offrun memory log`; not worth interrupting anyone
      return undefined;
    default: {
      const unhandled: never = event;
      return unhandled;
    }
  }
}
