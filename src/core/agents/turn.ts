import { randomUUID } from "node:crypto";
import type { Harness, TurnInput } from "../../harnesses/types.js";
import { describeError, type ErrorKind } from "../foundation/errors.js";
import type { EventDraft, ParsedEvent, TurnEndEvent } from "../foundation/events.js";
import { openMemoryTurn, type MemoryTurn } from "../memory/turn.js";
import { startPlannerCheck } from "./planner-check.js";
import type { AgentRecord, AgentStatus, ProjectConfig } from "../foundation/model.js";
import { runCli } from "./cli-run.js";
import { carryOverPrompt } from "./handoff.js";
import type { ProcessRunner } from "../foundation/runner.js";
import type { RefusalWatch } from "../sandbox/refusals.js";
import { liveRunner } from "./live-turn.js";
import { trailingQuestion } from "../foundation/question.js";
import { DiskFullStop, DiskFullTurn } from "./disk-full-turn.js";
import { CompanionStop } from "./turn-stop.js";
import { repositoryTrusted } from "../foundation/project.js";
import { NO_PROCESS, spawned } from "../foundation/process-identity.js";
import { promptInput, type QuotaEvent } from "./attempts.js";

/** What one turn needs; `log` and `update` write in order through the supervisor's per-agent queue. */
export interface TurnContext {
  record: AgentRecord;
  prompt: string;
  harness: Harness;
  binary: string;
  config: ProjectConfig;
  signal: AbortSignal;
  /** The environment of the login's processes (its extra env included). */
  env: NodeJS.ProcessEnv;
  /** The login's home, for an added login (the adapter sets the CLI's relocation variable). */
  loginHome?: string;
  /** Appends an event to the chat log; `at` when it happened before it is written (AgentJournal.log). */
  log(turn: number, event: EventDraft, at?: Date): Promise<void>;
  update(changes: Partial<AgentRecord>): Promise<void>;
  /** Quota readings and limit hits the stream reports, for the quota ledger. */
  observe(event: QuotaEvent): Promise<void>;
  /**
   * The prompt is Offrun's continuation after a failover, not the user's words: the log shows it
   * as Offrun's notice, so the conversation never shows a message the user did not send.
   */
  continuation?: boolean;
  /**
   * The prompt is the user's message to an agent that may have a conversation: when there is no
   * session to resume, the CLI gets the conversation with it (handoff.ts carryOverPrompt).
   */
  carryOver?: boolean;
  /** This turn's memory, already opened (a new agent's first turn, opened during the checkout). */
  memory?: MemoryTurn;
  /** Where the CLI runs (see foundation/runner.ts). */
  runner: ProcessRunner;
  /** A sandboxed turn: what the sandbox refused becomes events beside the tool calls that met it. */
  refusals?: RefusalWatch;
}

/** Whether a turn of this agent may write its memory folder: not a Planner whose CLI cannot write at all. */
export function canWriteMemory(record: Pick<AgentRecord, "mode">, harness: Harness): boolean {
  return record.mode !== "plan" || harness.plannerWritesNothing !== true;
}

export interface TurnResult {
  end: TurnEndEvent;
  /**
   * The agent's status after this turn, for the chain to write when it is done with the message:
   * a record that says idle while the chain still runs would invite a message it then refuses.
   */
  status: AgentStatus;
  /** The CLI gave up on HTTP 429s that were not a usage limit: worth another try after a pause. */
  rateLimited: boolean;
  /** The turn did something before it ended (a tool call, or the agent's own words before a limit). */
  progressed: boolean;
  /** The kind of the last error the stream reported (not_logged_in, auth_expired, ...). */
  errorKind?: ErrorKind;
}

/**
 * Runs one turn: spawns the CLI, turns every stdout line into events that are appended to the
 * chat log as they arrive, and ends with exactly one turn_end. Writes are queued in order and
 * not awaited one by one; the first one that fails fails the turn when the process is done.
 */
export async function runTurn(ctx: TurnContext): Promise<TurnResult> {
  const { record, harness, config } = ctx;
  const turn = record.turns + 1;
  const resume = record.sessionId !== undefined;
  const newSessionId = !resume && harness.choosesSessionId ? randomUUID() : undefined;
  // Ends the CLI early: the caller's stop, or a log the disk has no room for.
  const stopper = new AbortController();
  const forward = () => stopper.abort(ctx.signal.reason);
  if (ctx.signal.aborted) forward();
  else ctx.signal.addEventListener("abort", forward, { once: true });
  const disk = new DiskFullTurn(record.project, (reason) => stopper.abort(reason));
  // Read while the turn's first lines are written; a failure still fails the turn, where it is awaited.
  const trusted = repositoryTrusted(record.project);
  trusted.catch(() => undefined);
  await disk.prepare();
  // Nothing of the CLI's turn is logged before its pid and start time are in the record: a
  // companion killed at that first line would otherwise leave a CLI running that no one can name.
  let spawnRecorded: Promise<unknown> = Promise.resolve();
  const log = (at: number, event: EventDraft, when?: Date) =>
    disk.log(async () => {
      await spawnRecorded;
      await ctx.log(at, event, when);
    }, event);
  const update = (changes: Partial<AgentRecord>) => disk.update(() => ctx.update(changes));
  let writeError: unknown;
  const writes: Promise<unknown>[] = [];
  const write = (pending: Promise<void>) => {
    writes.push(pending.catch((error: unknown) => (writeError ??= error)));
  };

  // Queued ahead of the turn_start event, so the log keeps its order; the spawn waits for them (below).
  write(
    update({
      status: "working",
      turns: turn,
      turnStartedAt: new Date().toISOString(),
      lastError: undefined,
      resume: undefined,
    }),
  );
  write(
    log(
      turn,
      ctx.continuation
        ? { type: "notice", level: "info", message: `Offrun asked the agent to go on: "${ctx.prompt}"` }
        : { type: "user_message", text: ctx.prompt },
    ),
  );

  // Memory is a help, not a precondition: a turn goes ahead without it, and the log says why.
  const memory =
    ctx.memory ??
    (await openMemoryTurn(record, turn, resume, canWriteMemory(record, harness)).catch((error: unknown) => {
      const message = `Project memory is unavailable this turn: ${describeError(error)}`;
      write(log(turn, { type: "notice", level: "warning", message }));
      return undefined;
    }));
  // A snapshot the disk had no room for: the turn goes on, and its log says what was lost.
  for (const message of memory?.lost ?? []) write(log(turn, { type: "notice", level: "warning", message }));
  const message =
    ctx.carryOver && !resume && !ctx.continuation && turn > 1
      ? await carryOverPrompt(record, ctx.prompt, turn)
      : ctx.prompt;
  const prompt = memory?.briefing ? `${memory.briefing}\n\n${message}` : message;
  const planner = record.mode === "plan" ? await startPlannerCheck(record.worktree, record.name) : undefined;
  const input: TurnInput = {
    ...promptInput(prompt),
    ...(memory ? { addDirs: memory.addDirs } : {}),
    mode: record.mode,
    cwd: record.worktree,
    binary: ctx.binary,
    ...(ctx.loginHome ? { loginHome: ctx.loginHome } : {}),
    resumeSessionId: resume ? record.sessionId : undefined,
    newSessionId,
    model: record.model,
    ...(record.sandbox ? { sandboxed: true } : {}),
    ...((await trusted) ? { workspaceTrusted: true } : {}),
    env: { ...ctx.env, OFFRUN_PORT: String(record.port), OFFRUN_AGENT: record.name },
  };

  let end: TurnEndEvent | undefined;
  let lastRetry: string | undefined;
  let rateLimited = false;
  let limitHit = false;
  let lastText: string | undefined;
  let asked = false;
  let progressed = false;
  let errorKind: ErrorKind | undefined;
  let sessionNamed = false;
  const openToolCalls = new Set<string>();
  const handle = (events: ParsedEvent[]) => {
    for (const event of events) {
      if (end) return; // exactly one terminal event per turn
      if (event.type === "turn_end" && event.outcome === "completed" && openToolCalls.size === 0 && lastText) {
        // A turn that ends by asking the user something waits for them like an approval does.
        const question = trailingQuestion(lastText);
        if (question) {
          asked = true;
          write(log(turn, { type: "question", text: question }));
        }
      }
      const refused = ctx.refusals?.inspect(event) ?? [];
      // Refusals noted at the end still belong to the turn: they go before its terminal event.
      if (event.type === "turn_end") for (const refusal of refused) write(log(turn, refusal));
      write(log(turn, event));
      if (event.type !== "turn_end") for (const refusal of refused) write(log(turn, refusal));
      if (event.type === "session") sessionNamed = true;
      if (event.type === "session" && event.sessionId !== record.sessionId) {
        write(update({ sessionId: event.sessionId }));
      }
      if (event.type === "retry") lastRetry = event.message;
      if (event.type === "text") {
        lastText = event.text;
        // Words after a limit are the CLI's limit message, not the agent's work.
        if (!limitHit) progressed = true;
      }
      if (event.type === "error") errorKind = event.kind;
      if (event.type === "tool_call") {
        progressed = true;
        openToolCalls.add(event.id);
        lastText = undefined;
      }
      if (event.type === "tool_result") openToolCalls.delete(event.id);
      if (event.type === "error" && event.kind === "rate_limited") rateLimited = true;
      if (event.type === "quota" || event.type === "limit_hit") {
        if (event.type === "limit_hit") limitHit = true;
        write(ctx.observe(event));
      }
      if (event.type === "turn_end") end = { ...event, at: new Date().toISOString(), turn };
    }
  };
  const onSpawn = (pid: number | undefined) => {
    const spawnedAt = new Date();
    // The session Offrun chose exists once its CLI runs: a turn cut before the spawn (a kill, a
    // full disk that stops it at once) leaves none to resume, and the next message starts anew.
    // A session the CLI named itself meanwhile (its stream's first event) is the one to resume.
    const runs = pid !== undefined && !stopper.signal.aborted;
    const identity = spawned(pid).then((process) =>
      update({ ...process, ...(runs && newSessionId && !sessionNamed ? { sessionId: newSessionId } : {}) }),
    );
    write(identity);
    spawnRecorded = identity.catch(() => undefined);
    // Written once the pid is (above), but dated when the CLI began.
    write(
      log(
        turn,
        {
          type: "turn_start",
          harness: harness.id,
          account: record.account,
          mode: record.mode,
          resume,
          ...(record.sandbox ? { sandbox: true } : {}),
        },
        spawnedAt,
      ),
    );
  };

  // Build turns of a harness that can ask (approvals, questions) run over its control protocol.
  const runner = liveRunner(harness, record);
  // What the user said, and that the agent works, are on disk before its CLI runs: a companion
  // killed at those writes leaves no CLI running that its record does not name.
  await Promise.all(writes);
  await runCli({
    harness,
    runner: ctx.runner,
    input,
    config,
    signal: stopper.signal,
    ...(runner ? { live: { ...runner, turn } } : {}),
    handle,
    onSpawn,
    killedEnd: (why) => {
      const ended = killedEnd(why, config, stopper.signal.reason, record.project);
      if (lastRetry) ended.reason = `${ended.reason} Its last words: "${lastRetry}".`;
      return ended;
    },
    noResult: "The CLI ended without a result.",
    // A failover need not wait for the limited CLI to exit when its session is already complete.
    settleAtEnd: (ended) => ended.outcome === "limited" && harness.sessionCompleteAtEnd === true,
  });
  ctx.signal.removeEventListener("abort", forward);
  let final = end!;

  await memory
    ?.finish((event) => log(turn, event))
    .catch((error: unknown) => {
      // The memory's snapshot on a full disk: the turn's end says the disk is full, and the
      // memory files themselves are the agent's, already written.
      if (!disk.error) throw error;
    });
  const plannerWarning = await planner?.finish();
  if (plannerWarning) await log(turn, plannerWarning);
  // Every line and every quota observation is on disk before the turn counts as over: the next
  // step (a failover's pick) reads the limit this turn recorded.
  await Promise.all(writes);
  final = await disk.finish(final, (event) => ctx.log(turn, event));
  await update({ ...NO_PROCESS, lastError: final.outcome === "completed" ? undefined : final.reason });
  if (writeError !== undefined) throw writeError;
  return {
    end: final,
    status: asked ? "needs-you" : statusAfter(final),
    rateLimited: rateLimited && !limitHit && final.outcome === "failed",
    progressed,
    ...(errorKind ? { errorKind } : {}),
  };
}

function statusAfter(end: TurnEndEvent): AgentStatus {
  switch (end.outcome) {
    case "completed":
    case "cancelled":
      return "idle";
    case "limited":
      return "limited";
    case "failed":
    case "interrupted":
      return "failed";
    default: {
      const unreachable: never = end.outcome;
      return unreachable;
    }
  }
}

type TurnEndDraft = Extract<ParsedEvent, { type: "turn_end" }>;

/** The end of a turn Offrun ended itself; `stopped` is the stop's reason (its signal's abort reason). */
function killedEnd(
  why: "timeout" | "idle" | "cancelled",
  config: ProjectConfig,
  stopped: unknown,
  project: string,
): TurnEndDraft {
  switch (why) {
    case "cancelled":
      if (stopped instanceof DiskFullStop) return DiskFullTurn.end(project);
      if (stopped instanceof CompanionStop) return stopped.end();
      return { type: "turn_end", outcome: "cancelled", reason: "Stopped by the user." };
    case "idle":
      return {
        type: "turn_end",
        outcome: "failed",
        reason: `The CLI printed nothing for ${config.idleTimeoutMinutes} min (it may be stuck retrying), so Offrun ended it. Send a message to try again; raise idleTimeoutMinutes in .offrun/config.json if turns are legitimately quiet.`,
      };
    case "timeout":
      return {
        type: "turn_end",
        outcome: "failed",
        reason: `The turn ran longer than ${config.turnTimeoutMinutes} min, so Offrun ended it. Send a message to continue; raise turnTimeoutMinutes in .offrun/config.json for longer turns.`,
      };
  }
}

/** The errors that say a login is not signed in (or its sign-in expired). */
const SIGNED_OUT: readonly (ErrorKind | undefined)[] = ["not_logged_in", "auth_expired"];
/** A CLI run (a turn, a review) failed because its login is not signed in: the next login may go on. */
export const isSignedOut = (result: { end: { outcome: string }; errorKind?: ErrorKind }) =>
  result.end.outcome === "failed" && SIGNED_OUT.includes(result.errorKind);
