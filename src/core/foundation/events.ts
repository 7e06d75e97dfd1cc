import * as z from "zod";
import { ERROR_KINDS } from "./errors.js";
import { once } from "./lazy-schemas.js";

/** A quota window as observed from some source; `usedPercent` is 0..100. */
export const quotaWindowSchema = z.lazy(() =>
  z.object({
    kind: z.string().min(1), // five_hour, seven_day, seven_day_opus, monthly, ...
    usedPercent: z.number().min(0).max(100).optional(),
    usedTokens: z.number().nonnegative().optional(), // estimates from local session files, when the percent is unknown
    resetsAt: z.string().optional(), // ISO time
    status: z.enum(["allowed", "warning", "rejected"]).optional(),
    source: z.string().min(1),
    observedAt: z.string(),
  }),
);
export type QuotaWindow = z.infer<typeof quotaWindowSchema>;

/** One finding of a review; `onDiff` is Offrun's check that the diff touches that file and line. */
export const reviewFindingSchema = z.lazy(() =>
  z.object({
    file: z.string(),
    line: z.number().int().positive().optional(),
    severity: z.enum(["critical", "major", "minor", "nit"]),
    message: z.string(),
    suggestion: z.string().optional(),
    onDiff: z.boolean(),
  }),
);
export type ReviewFinding = z.infer<typeof reviewFindingSchema>;

/** The two fields the journal stamps on every event. */
const eventBase = () => ({ at: z.string(), turn: z.number().int().nonnegative() });

/**
 * What an agent CLI's stream can say, as its adapter translates it (a parser, a live turn): the
 * only events an adapter may emit. Offrun writes some of them as well (its own notices, errors
 * and turn_end).
 */
function streamVariants() {
  const base = eventBase();

  /** The CLI's own session id (for resume) and model, once the stream names them. */
  const session = z.object({
    ...base,
    type: z.literal("session"),
    sessionId: z.string(),
    model: z.string().optional(),
  });
  /** Assistant text. */
  const text = z.object({ ...base, type: z.literal("text"), text: z.string() });
  /** The agent called a tool (file write, shell command, ...). */
  const toolCall = z.object({
    ...base,
    type: z.literal("tool_call"),
    id: z.string(),
    name: z.string(),
    input: z.unknown(),
  });
  /** The result of a tool call. */
  const toolResult = z.object({
    ...base,
    type: z.literal("tool_result"),
    id: z.string(),
    output: z.string(),
    isError: z.boolean(),
  });
  /** A tool use the CLI refused by itself (non-interactive mode). */
  const denial = z.object({ ...base, type: z.literal("denial"), tool: z.string(), input: z.unknown() });
  /** Tokens (and cost, where the CLI says) used by the turn so far. */
  const usage = z.object({
    ...base,
    type: z.literal("usage"),
    inputTokens: z.number(),
    outputTokens: z.number(),
    cacheReadTokens: z.number().optional(),
    cacheWriteTokens: z.number().optional(),
    costUsd: z.number().optional(),
  });
  /** Quota windows the stream reported for the login in use. */
  const quota = z.object({ ...base, type: z.literal("quota"), windows: z.array(quotaWindowSchema) });
  /** The login hit a usage limit; `resetsAt` when the message said. */
  const limitHit = z.object({
    ...base,
    type: z.literal("limit_hit"),
    message: z.string(),
    resetsAt: z.string().optional(),
    window: z.string().optional(),
  });
  /** The CLI is retrying a transient failure by itself. */
  const retry = z.object({ ...base, type: z.literal("retry"), attempt: z.number(), message: z.string() });
  /** Something went wrong; `kind` is one of the fixed error kinds. */
  const error = z.object({ ...base, type: z.literal("error"), kind: z.enum(ERROR_KINDS), message: z.string() });
  /** A remark in the log: the CLI's own warnings, or Offrun's (setup output, a Planner turn that changed files, a restart). */
  const notice = z.object({
    ...base,
    type: z.literal("notice"),
    level: z.enum(["info", "warning"]),
    message: z.string(),
  });
  /** The one terminal event of every turn. */
  const turnEnd = z.object({
    ...base,
    type: z.literal("turn_end"),
    outcome: z.enum(["completed", "failed", "limited", "cancelled", "interrupted"]),
    reason: z.string().optional(),
    exitCode: z.number().nullable().optional(),
  });

  return [session, text, toolCall, toolResult, denial, usage, quota, limitHit, retry, error, notice, turnEnd] as const;
}

/**
 * What only Offrun records: the user's side (prompts, decisions), the turns it starts, its
 * sandbox, the moves between logins and CLIs, reviews and memory. An adapter never emits these:
 * a live turn's approval or question goes through `LiveTurnIO.decide`, which logs it.
 */
function recordedVariants() {
  const base = eventBase();

  /** The prompt the user sent for a turn. */
  const userMessage = z.object({ ...base, type: z.literal("user_message"), text: z.string() });
  /** A turn was spawned: which harness, login, mode and native session. */
  const turnStart = z.object({
    ...base,
    type: z.literal("turn_start"),
    harness: z.string(),
    // `account` names the login: the key is kept for files of earlier versions.
    account: z.string(),
    mode: z.enum(["build", "plan"]),
    resume: z.boolean(),
    /** The CLI ran inside the sandbox (core/sandbox). */
    sandbox: z.boolean().optional(),
  });
  /** The agent wants permission to use a tool and waits for the user. */
  const approvalRequest = z.object({
    ...base,
    type: z.literal("approval_request"),
    id: z.string(),
    tool: z.string(),
    input: z.unknown(),
    /** One line on what needs approval (live turns). */
    text: z.string().optional(),
    /** What `offrun approve --always` remembers, e.g. "Bash(npm install *)". */
    alwaysKey: z.string().optional(),
  });
  /** The agent asks the user something. */
  const question = z.object({
    ...base,
    type: z.literal("question"),
    text: z.string(),
    /** Set when the agent waits for the answer (live turns): `offrun answer --request` names it. */
    id: z.string().optional(),
    tool: z.string().optional(),
    input: z.unknown().optional(),
  });
  /** The user's answer to an approval_request or question (or an alwaysAllow rule that answered for them). */
  const decision = z.object({
    ...base,
    type: z.literal("decision"),
    id: z.string(),
    decision: z.enum(["allow", "deny", "answer"]),
    by: z.enum(["user", "always_allow"]),
    always: z.boolean().optional(),
    reason: z.string().optional(),
    text: z.string().optional(),
  });
  /**
   * Offrun's sandbox, not the CLI's own permission layer, kept the agent from something: a write
   * outside its folders, a read of a protected file, a host not on the list.
   */
  const sandboxRefusal = z.object({
    ...base,
    type: z.literal("sandbox_refusal"),
    kind: z.enum(["write", "read", "network"]),
    /** The path or host refused. */
    target: z.string(),
    /** The tool call it happened in, when known. */
    toolId: z.string().optional(),
    /** A refused host that is the login's own API: the setting that names it (`settings.json env.ANTHROPIC_BASE_URL`). */
    setting: z.string().optional(),
    /** That setting is in a file of the repository's (the worktree's `.claude/settings.json`): it opens nothing. */
    repository: z.boolean().optional(),
  });
  /** The conversation moved to another login of the same CLI (its session file copied and resumed there). */
  const loginSwitch = z.object({
    ...base,
    type: z.literal("account_switch"),
    from: z.string(),
    to: z.string(),
    reason: z.string(),
  });
  /**
   * Every login of the agent's CLI was limited, so the agent waits for the earliest reset and goes on
   * by itself (waiting), went on (resumed), or the wait ended without going on (cancelled: the user
   * stopped it or sent another message; gave_up: still no room after the reset).
   */
  const resetWait = z.object({
    ...base,
    type: z.literal("reset_wait"),
    phase: z.enum(["waiting", "resumed", "cancelled", "gave_up"]),
    resumesAt: z.string(),
    /** The login it expects to go on with (the one that resets first), or the one it went on with. */
    // `account` names the login: the key is kept for files of earlier versions.
    account: z.string(),
    message: z.string(),
  });
  /** The work moved to another CLI in the same worktree, with a handoff prompt. */
  const handoff = z.object({
    ...base,
    type: z.literal("handoff"),
    fromHarness: z.string(),
    toHarness: z.string(),
    // `account` names the login: the key is kept for files of earlier versions.
    account: z.string(),
  });
  /**
   * A review of the agent's changes by another login, run read-only in a scratch worktree.
   * completed: a validated review; malformed: the reviewer answered outside the required shape
   * (its text kept in `raw`, no verdict); failed: no review. Only a completed one has a verdict.
   */
  const review = z.object({
    ...base,
    type: z.literal("review"),
    id: z.string(),
    // `account` names the login: the key is kept for files of earlier versions.
    reviewer: z.object({ harness: z.string(), account: z.string(), model: z.string().optional() }),
    outcome: z.enum(["completed", "malformed", "failed"]),
    verdict: z.enum(["approve", "changes_requested", "comment"]).optional(),
    summary: z.string().optional(),
    findings: z.array(reviewFindingSchema),
    raw: z.string().optional(),
    reason: z.string().optional(),
    /** What was reviewed: the agent's base, its commits since, and the changed files. */
    scope: z.object({ base: z.string(), commits: z.number().int(), files: z.number().int() }),
    /** The author's worktree compared before and after; absent when the check could not run. */
    authorWorktree: z.object({ unchanged: z.boolean(), changed: z.array(z.string()) }).optional(),
    /** Writes the reviewer tried and its read-only mode refused. */
    blockedWrites: z.array(z.object({ tool: z.string(), input: z.unknown() })),
    tokens: z.object({ input: z.number(), output: z.number(), costUsd: z.number().optional() }).optional(),
    quotaBefore: z.array(quotaWindowSchema).optional(),
    quotaAfter: z.array(quotaWindowSchema).optional(),
    /** Logins that hit their limit or were not signed in during the review, before the one that reviewed. */
    failedOver: z.array(z.string()).optional(),
    /** Of those, the ones that were not signed in. */
    signedOut: z.array(z.string()).optional(),
    /** The reviewer's own event log. */
    transcript: z.string().optional(),
  });
  /**
   * A project memory file changed during this agent's turn: `file` is relative to the project,
   * `who` says whose file it is (the agent's own, another agent's, conventions.md, or another
   * shared file), `diff` is unified, and `before`/`after` name snapshots (absent: no file).
   */
  const memoryChange = z.object({
    ...base,
    type: z.literal("memory_change"),
    id: z.string(),
    file: z.string(),
    who: z.enum(["own", "other_agent", "conventions", "shared"]),
    owner: z.string().optional(),
    diff: z.string(),
    before: z.string().optional(),
    after: z.string().optional(),
  });

  return [
    userMessage,
    turnStart,
    approvalRequest,
    question,
    decision,
    sandboxRefusal,
    loginSwitch,
    resetWait,
    handoff,
    review,
    memoryChange,
  ] as const;
}

/**
 * Both groups, built when the first event is parsed (lazy-schemas.ts): a command that reads no
 * chat log builds none of them.
 */
const variants = once(() => ({ stream: streamVariants(), recorded: recordedVariants() }));

export const streamEventSchema = z.lazy(() => z.discriminatedUnion("type", variants().stream));
export const recordedEventSchema = z.lazy(() => z.discriminatedUnion("type", variants().recorded));
/** One line of `.offrun/chats/<agent>.jsonl`: a stream event or a recorded one. */
export const agentEventSchema = z.lazy(() =>
  z.discriminatedUnion("type", [...variants().stream, ...variants().recorded]),
);
/** A stream event as logged. */
export type StreamEvent = z.infer<typeof streamEventSchema>;
/** A recorded event as logged. */
export type RecordedEvent = z.infer<typeof recordedEventSchema>;
/** One line of `.offrun/chats/<agent>.jsonl`. */
export type AgentEvent = z.infer<typeof agentEventSchema>;

/** One chat log line as an event, or undefined for a line that is not JSON or not an event. */
export function parseEventLine(line: string): AgentEvent | undefined {
  try {
    const parsed = agentEventSchema.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
export type AgentEventType = AgentEvent["type"];
export type TurnEndEvent = Extract<AgentEvent, { type: "turn_end" }>;
export type TurnOutcome = TurnEndEvent["outcome"];
export type ReviewEvent = Extract<AgentEvent, { type: "review" }>;
export type MemoryChangeEvent = Extract<AgentEvent, { type: "memory_change" }>;

/** Each variant of `E` without the two fields the journal stamps. */
type Unstamped<E> = E extends unknown ? Omit<E, "at" | "turn"> : never;
/**
 * Events as an adapter emits them (a parser, a live turn): stream events only, so an adapter that
 * emits one Offrun records (a review, a login switch) fails to compile. The journal stamps `at`
 * and `turn`.
 */
export type ParsedEvent = Unstamped<StreamEvent>;
/** Any event as Offrun logs it, before the journal stamps `at` and `turn`. */
export type EventDraft = Unstamped<AgentEvent>;
