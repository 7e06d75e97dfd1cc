import type { Decision, PendingRequest } from "../../harnesses/types.js";
import { OffrunError } from "../foundation/errors.js";
import type { AgentEvent, EventDraft } from "../foundation/events.js";
import type { AgentRecord, ProjectConfig } from "../foundation/model.js";
import { loadProjectConfig } from "../foundation/project.js";

/** A request as the user sees it: the harness's request with the id Offrun gave it. */
export interface PendingEntry {
  request: PendingRequest;
  turn: number;
  since: string;
}

interface Waiter {
  entry: PendingEntry;
  resolve(decision: Decision): void;
  reject(error: Error): void;
}

/** How many answered ids each agent remembers, to tell "already answered" from "never existed". */
const ANSWERED_MEMORY = 50;

/**
 * Requests that wait for the user, per agent and id. The first answer wins and removes the
 * request, so a second answer to the same request is refused, never applied twice.
 */
export class PendingRequests {
  private readonly waiting = new Map<string, Map<string, Waiter>>();
  private readonly answered = new Map<string, Map<string, Decision["kind"]>>();

  /** Waits for the user's decision on `entry`; rejects only through `cancel`. */
  add(agent: string, entry: PendingEntry): Promise<Decision> {
    return new Promise<Decision>((resolve, reject) => {
      const forAgent = this.waiting.get(agent) ?? new Map<string, Waiter>();
      forAgent.set(entry.request.id, { entry, resolve, reject });
      this.waiting.set(agent, forAgent);
    });
  }

  list(agent: string): PendingEntry[] {
    return [...(this.waiting.get(agent)?.values() ?? [])].map((w) => w.entry);
  }

  /**
   * Applies the user's decision to one pending request of the agent named `name`: the one with
   * `requestId`, or the only one. Throws, with what to do, when that is not possible.
   */
  resolve(agent: string, name: string, decision: Decision, requestId?: string): PendingEntry {
    const forAgent = this.waiting.get(agent);
    const waiters = [...(forAgent?.values() ?? [])];
    let waiter: Waiter | undefined;
    if (requestId !== undefined) {
      waiter = forAgent?.get(requestId);
      if (!waiter) {
        const earlier = this.answered.get(agent)?.get(requestId);
        if (earlier) {
          throw new OffrunError(
            "conflict",
            `Request ${requestId} of ${name} was already answered (${earlier}); the first answer stands.`,
          );
        }
        const open = waiters.map((w) => w.entry.request.id);
        throw new OffrunError(
          "not_found",
          `${name} has no request ${requestId} waiting (it was answered, or its turn ended).${open.length > 0 ? ` Waiting: ${open.join(", ")}.` : ""}`,
        );
      }
    } else if (waiters.length === 0) {
      throw new OffrunError("invalid_input", `${name} has nothing waiting for you.`);
    } else if (waiters.length > 1) {
      const ids = waiters.map((w) => `${w.entry.request.id} (${w.entry.request.text})`).join("; ");
      throw new OffrunError(
        "invalid_input",
        `${name} has ${waiters.length} requests waiting: ${ids}. Name one with --request ID.`,
      );
    } else {
      waiter = waiters[0];
    }
    const entry = waiter!.entry;
    checkFits(entry.request, decision, name);
    forAgent!.delete(entry.request.id);
    if (forAgent!.size === 0) this.waiting.delete(agent);
    this.remember(agent, entry.request.id, decision.kind);
    waiter!.resolve(decision);
    return entry;
  }

  /** Ends one request without a decision (its turn was stopped). */
  cancel(agent: string, id: string, error: Error): void {
    const forAgent = this.waiting.get(agent);
    const waiter = forAgent?.get(id);
    if (!waiter) return;
    forAgent!.delete(id);
    if (forAgent!.size === 0) this.waiting.delete(agent);
    waiter.reject(error);
  }

  private remember(agent: string, id: string, kind: Decision["kind"]): void {
    const forAgent = this.answered.get(agent) ?? new Map<string, Decision["kind"]>();
    forAgent.set(id, kind);
    if (forAgent.size > ANSWERED_MEMORY) forAgent.delete(forAgent.keys().next().value!);
    this.answered.set(agent, forAgent);
  }
}

/** An approval is approved or denied; a question is answered (or declined with --deny). */
function checkFits(request: PendingRequest, decision: Decision, name: string): void {
  if (request.kind === "approval" && decision.kind === "answer") {
    throw new OffrunError(
      "invalid_input",
      `Request ${request.id} of ${name} asks for approval, not an answer: \`offrun approve ${name}\` or \`offrun approve ${name} --deny --reason "..."\`.`,
    );
  }
  if (request.kind === "question" && decision.kind === "allow") {
    throw new OffrunError(
      "invalid_input",
      `Request ${request.id} of ${name} is a question: \`offrun answer ${name} "your answer"\` (or \`offrun approve ${name} --deny\` to decline it).`,
    );
  }
}

/** What a live turn needs to ask the user, from the supervisor. */
export interface AskContext {
  pending: PendingRequests;
  agent: string;
  record: AgentRecord;
  turn: number;
  config: ProjectConfig;
  signal: AbortSignal;
  log(turn: number, event: EventDraft): Promise<void>;
  update(changes: Partial<AgentRecord>): Promise<void>;
}

/**
 * Logs the request, shows the agent as needs-you and waits for the user's decision, however long
 * that takes: after approvalTimeoutMinutes the log gets one notice, and the request stays pending.
 * A request matching an alwaysAllow rule of the project is allowed at once (and logged as such).
 */
export async function askUser(ctx: AskContext, request: PendingRequest): Promise<Decision> {
  const { record, turn } = ctx;
  const requested: EventDraft =
    request.kind === "approval"
      ? {
          type: "approval_request",
          id: request.id,
          tool: request.tool ?? "tool",
          // The event needs an input; an ACP permission request may carry none.
          input: request.input ?? null,
          text: request.text,
          ...(request.alwaysKey ? { alwaysKey: request.alwaysKey } : {}),
        }
      : { type: "question", id: request.id, text: request.text, tool: request.tool, input: request.input ?? null };
  if (
    request.kind === "approval" &&
    request.alwaysKey &&
    (await alwaysAllowed(record.project)).includes(request.alwaysKey)
  ) {
    await ctx.log(turn, requested);
    await ctx.log(turn, { type: "decision", id: request.id, decision: "allow", by: "always_allow" });
    return { kind: "allow" };
  }
  if (ctx.signal.aborted) throw new OffrunError("cancelled", "The turn was stopped.");
  const waiting = ctx.pending.add(ctx.agent, { request, turn, since: new Date().toISOString() });
  await ctx.log(turn, requested);
  await ctx.update({ status: "needs-you" });
  const minutes = ctx.config.approvalTimeoutMinutes;
  const reminder = setTimeout(() => {
    void ctx.log(turn, {
      type: "notice",
      level: "warning",
      message: `${record.name} has waited ${minutes} min for you on request ${request.id}; it stays paused until you answer (\`offrun show ${record.name}\`).`,
    });
  }, minutes * 60_000);
  reminder.unref();
  const onAbort = () =>
    ctx.pending.cancel(ctx.agent, request.id, new OffrunError("cancelled", "The turn was stopped."));
  ctx.signal.addEventListener("abort", onAbort, { once: true });
  try {
    const decision = await waiting;
    await ctx.log(turn, decisionEvent(request.id, decision));
    if (ctx.pending.list(ctx.agent).length === 0) await ctx.update({ status: "working" });
    return decision;
  } finally {
    clearTimeout(reminder);
    ctx.signal.removeEventListener("abort", onAbort);
  }
}

function decisionEvent(id: string, decision: Decision): EventDraft {
  switch (decision.kind) {
    case "allow":
      return { type: "decision", id, decision: "allow", by: "user", ...(decision.always ? { always: true } : {}) };
    case "deny":
      return {
        type: "decision",
        id,
        decision: "deny",
        by: "user",
        ...(decision.reason ? { reason: decision.reason } : {}),
      };
    case "answer":
      return { type: "decision", id, decision: "answer", by: "user", text: decision.text };
  }
}

/** The rules as they stand now win over the config the turn started with: `--always` may have added one since. */
async function alwaysAllowed(root: string): Promise<string[]> {
  return (await loadProjectConfig(root)).alwaysAllow;
}

/**
 * The requests still waiting, from the chat log: asked in the agent's latest turn and not decided.
 * Views read this (they never ask the companion); it is only meaningful while the status is needs-you.
 */
export function pendingFromLog(record: AgentRecord, events: AgentEvent[]): AgentEvent[] {
  if (record.status !== "needs-you") return [];
  const decided = new Set(events.flatMap((e) => (e.type === "decision" ? [e.id] : [])));
  return events.filter(
    (e) =>
      e.turn === record.turns &&
      ((e.type === "approval_request" && !decided.has(e.id)) ||
        (e.type === "question" && e.id !== undefined && !decided.has(e.id))),
  );
}
