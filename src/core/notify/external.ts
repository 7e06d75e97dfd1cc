import path from "node:path";
import { listAgents } from "../records/records.js";
import { knownProjects } from "../foundation/project.js";
import { projectPaths } from "../foundation/paths.js";
import { cut, type AgentNotification } from "./classify.js";
import type { Notifier, NotificationRecord } from "./notifier.js";

export const EXTERNAL_KINDS = ["finished", "needs-approval", "question", "limit"] as const;
/** What a session Offrun did not start can tell us (it never "moves to another login"). */
export type ExternalKind = (typeof EXTERNAL_KINDS)[number];

/**
 * One moment of a session started outside Offrun (another terminal, an editor), read from its
 * transcript by the watcher or handed over by the CLI's own hook. Harness adapters produce these;
 * nothing here knows a CLI's format.
 */
export interface ExternalSignal {
  /** The harness id (claude, codex, ...). */
  harness: string;
  source: "transcript" | "hook";
  kind: ExternalKind;
  /** The CLI's own session id. */
  sessionId: string;
  /**
   * What identifies this moment exactly when the source knows it (a tool_use id, a turn id). Two
   * signals with the same id are one; without one, dedupe falls back to a short window.
   */
  eventId?: string;
  /** Where the session runs; names the project in the title. */
  cwd?: string;
  /** The agent's last words, the command waiting for approval, or the question. */
  text: string;
  at: string;
}

/**
 * The same turn end seen by the watcher and by a hook must notify once, and the two sources do not
 * always share an id (a Notification hook names no tool_use): a second signal of the same kind for
 * the same session within this window is the same moment.
 */
export const DEDUPE_WINDOW_MS = 15_000;
/** How long the set of Offrun's own sessions is trusted before agent records are read again. */
const OWN_SESSIONS_TTL_MS = 5_000;
const SEEN_MAX = 5000;

const HEADLINES: Record<ExternalKind, string> = {
  finished: "finished",
  "needs-approval": "needs approval",
  question: "asks a question",
  limit: "hit a limit",
};

export type ExternalOutcome = NotificationRecord["outcome"] | "offrun-agent";

/**
 * Turns external signals into notifications: drops those of agents Offrun runs itself (their own
 * stream already told the user, exactly), drops the second sighting of one moment, and hands the
 * rest to the notifier (rate limit, quiet hours, delivery).
 */
export class ExternalNotifications {
  private readonly seenIds = new Set<string>();
  private readonly lastSeen = new Map<string, { at: number; source: ExternalSignal["source"]; eventId?: string }>();
  private own: { at: number; sessions: Set<string>; worktrees: string[] } | undefined;

  constructor(
    private readonly notifier: Notifier,
    private readonly options: { projects?: () => Promise<string[]>; now?: () => number } = {},
  ) {}

  async offer(signal: ExternalSignal): Promise<ExternalOutcome> {
    if (await this.isOffrunAgent(signal)) return "offrun-agent";
    const now = (this.options.now ?? Date.now)();
    const sessionKey = [signal.harness, signal.sessionId, signal.kind].join("\u0000");
    if (signal.eventId) {
      const idKey = `${sessionKey}\u0000${signal.eventId}`;
      if (this.seenIds.has(idKey)) return "duplicate";
      this.remember(idKey);
    }
    const last = this.lastSeen.get(sessionKey);
    this.lastSeen.set(sessionKey, {
      at: now,
      source: signal.source,
      ...(signal.eventId ? { eventId: signal.eventId } : {}),
    });
    // Two ids from one source tell two moments apart exactly (two turns ending within seconds);
    // the window is for sightings that cannot be compared by id.
    const comparable = last?.source === signal.source && last.eventId !== undefined && signal.eventId !== undefined;
    if (last !== undefined && !comparable && now - last.at < DEDUPE_WINDOW_MS) return "duplicate";
    const record = await this.notifier.offer(toNotification(signal, now));
    return record.outcome;
  }

  /** Whether the session is one of Offrun's agents (by session id, or by running in a worktree of a known project). */
  private async isOffrunAgent(signal: ExternalSignal): Promise<boolean> {
    const now = Date.now();
    if (!this.own || now - this.own.at > OWN_SESSIONS_TTL_MS) {
      const projects = await (this.options.projects ?? knownProjects)().catch(() => []);
      const sessions = new Set<string>();
      for (const project of projects) {
        for (const agent of await listAgents(project).catch(() => []))
          if (agent.sessionId) sessions.add(agent.sessionId);
      }
      this.own = { at: now, sessions, worktrees: projects.map((p) => projectPaths(p).worktrees + path.sep) };
    }
    if (this.own.sessions.has(signal.sessionId)) return true;
    const cwd = signal.cwd ? path.resolve(signal.cwd) + path.sep : undefined;
    return cwd !== undefined && this.own.worktrees.some((dir) => cwd.startsWith(dir));
  }

  private remember(key: string): void {
    this.seenIds.add(key);
    if (this.seenIds.size > SEEN_MAX) {
      const oldest = this.seenIds.values().next().value;
      if (oldest !== undefined) this.seenIds.delete(oldest);
    }
  }
}

/** The notification of one external signal: the session stands in for the agent. */
export function toNotification(signal: ExternalSignal, now: number): AgentNotification {
  const project = signal.cwd ?? "";
  const where = project ? path.basename(project) : "session";
  return {
    kind: signal.kind,
    agent: `session ${signal.sessionId.slice(0, 8)}`,
    project,
    // Signals of one session carry no turn number; the time keeps two turn ends apart for the notifier's own dedupe.
    turn: 0,
    requestId: signal.eventId ?? String(now),
    title: `${signal.harness} · ${where}: ${HEADLINES[signal.kind]}`,
    body: cut(signal.text || `session ${signal.sessionId}`),
    at: signal.at,
  };
}
