import { findHarness } from "../../harnesses/registry.js";
import type { Harness } from "../../harnesses/types.js";
import { findLogin } from "../logins/store.js";
import { describeError } from "../foundation/errors.js";
import type { EventDraft, TurnEndEvent } from "../foundation/events.js";
import type { LoginPicker } from "../logins/picker.js";
import type { AgentRecord, AgentStatus, ProjectConfig } from "../foundation/model.js";
import { runAttempts } from "./attempts.js";
import { backoffMs, pause } from "./backoff.js";
import { planResetWait, type ResetWaitPlan } from "./reset-wait.js";
import { forgetMissingSession, moveSession } from "./session-move.js";
import { canWriteMemory, isSignedOut, runTurn, type TurnContext, type TurnResult } from "./turn.js";
import { openMemoryTurn, type MemoryTurn } from "../memory/turn.js";
import type { ProcessRunner } from "../foundation/runner.js";

/**
 * What the next login is told when the limited turn had already done work: the copied session
 * holds the user's message and every tool call, so sending the message again would ask for the
 * work twice (and repeat commands with side effects).
 */
export const CONTINUATION_PROMPT =
  "Your previous login hit its usage limit mid-turn. Continue where you stopped: the conversation above is complete (the last request is already in it), so do not redo work that is already done; check the files if unsure, then finish the task.";

export interface ChainContext {
  record: AgentRecord;
  /** The user's message. */
  prompt: string;
  binary: string;
  config: ProjectConfig;
  signal: AbortSignal;
  env: NodeJS.ProcessEnv;
  /** Where the agent's CLI runs (see foundation/runner.ts). */
  runner: ProcessRunner;
  logins: LoginPicker;
  log(turn: number, event: EventDraft, at?: Date): Promise<void>;
  update(changes: Partial<AgentRecord>): Promise<void>;
  /**
   * The message goes on after a wait for a reset: it starts with the continuation when the limited
   * turn had done work, on `login` (moving the session there first), and waits no second time.
   */
  resumed?: { continuation: boolean; login: string };
  /** Called once, when the first turn has taken its login (a queue of resumes waits for it). */
  onDispatched?: () => void;
  /** Called once, when the chain is done with the message and only writes how it ended. */
  onClosing?: () => void;
  /** The next turn's memory, opened ahead: a new agent's during its checkout, a failover's during the session's move. */
  firstMemory?: MemoryTurn;
  /** The user's message: a new session gets the conversation with it (see TurnContext). */
  carryOver?: boolean;
}

/**
 * One user message, carried to its end: the turn runs on the agent's login; when that login hits
 * its usage limit, or turns out not to be signed in, the session moves to the next login with room
 * and goes on there (with a continuation when work was already done, else the message again); a
 * transient 429 is tried again after a capped, jittered pause. Each login is tried at most once per
 * message, so a failover never loops. When no login has room, the agent waits for the earliest
 * reset (see reset-wait.ts) unless this message already did.
 *
 * The agent's status after the message is written last, once the notes on its logins are on disk:
 * a record that said idle while the chain still ran would invite a message that is then refused.
 */
export async function runTurnChain(
  ctx: ChainContext,
  /** Runs one turn on one login: the CLI's turn (a test gives its own work). */
  turn: (context: TurnContext) => Promise<TurnResult> = runTurn,
): Promise<TurnEndEvent> {
  // What a turn says about its login (signed in, healthy) is kept alongside the next step, not
  // before it: the chain is closing while these writes finish.
  const { end, status, notes } = await carry(ctx, turn);
  ctx.onClosing?.();
  await notes;
  if (status) await ctx.update({ status });
  return end;
}

/** The chain itself; `status` is what the agent's status becomes, unless the chain already wrote it. */
async function carry(
  ctx: ChainContext,
  turn: (context: TurnContext) => Promise<TurnResult>,
): Promise<{ end: TurnEndEvent; status?: AgentStatus; notes: Promise<void> }> {
  const { record, config } = ctx;
  const harness = await findHarness(record.harness, { project: record.project, env: ctx.env });
  let retries = 0;
  let anew = false;
  let continuation = ctx.resumed?.continuation ?? false;
  if (ctx.resumed && ctx.resumed.login !== record.account) {
    const from = await findLogin(harness, record.account, ctx.env);
    const to = await findLogin(harness, ctx.resumed.login, ctx.env);
    const moved = await moveSession(ctx, harness, from, to, `went on after the reset on ${to.label}`);
    if (!moved.carried) continuation = false;
  }
  const warn = (message: string) => ctx.log(record.turns, { type: "notice", level: "warning", message });
  const attempts = await runAttempts<TurnResult>({
    harness,
    logins: ctx.logins,
    first: await findLogin(harness, record.account, ctx.env),
    signal: ctx.signal,
    runner: ctx.runner,
    // A sandboxed agent's policy follows the login: a failover opens the next login's home, not this one's.
    ...(record.sandbox ? { sandbox: { record, config, warn: (_login, message) => warn(message) } } : {}),
    onHeld: () => ctx.onDispatched?.(),
    attempt: (login) => {
      const memory = ctx.firstMemory;
      ctx.firstMemory = undefined; // a failover's turn gets its own (moveTo), or opens it
      return turn({
        ...(memory ? { memory } : {}),
        ...(login.refusals ? { refusals: login.refusals } : {}),
        runner: login.runner,
        record,
        prompt: continuation ? CONTINUATION_PROMPT : ctx.prompt,
        continuation,
        // A session started anew is handed the conversation so far, whatever began the message.
        ...(ctx.carryOver || anew ? { carryOver: true } : {}),
        harness,
        binary: ctx.binary,
        config,
        signal: ctx.signal,
        env: login.env,
        ...(login.loginHome ? { loginHome: login.loginHome } : {}),
        log: ctx.log,
        update: ctx.update,
        observe: login.observe,
      });
    },
    judge: async (result, login) => {
      const { end } = result;
      if (end.outcome === "completed") return { kind: "completed" };
      if (end.outcome === "limited") return { kind: "limited" };
      if (await forgetMissingSession(ctx, result.errorKind, anew)) {
        anew = true;
        continuation = false;
        return { kind: "again" };
      }
      if (isSignedOut(result)) {
        await ctx.log(record.turns, {
          type: "notice",
          level: "warning",
          message: `Login ${login.label} is not signed in, so Offrun marked it signed out and goes on with the next login. Sign it in again with \`offrun logins login ${harness.id} ${login.label}\`.`,
        });
        return { kind: "signed_out", reason: end.reason ?? "a turn ended not logged in" };
      }
      if (result.rateLimited && retries < config.retry.attempts) {
        retries += 1;
        const delayMs = backoffMs(retries, config.retry);
        const message = `Rate limited (not a usage limit). Trying again in ${Math.round(delayMs / 1000)} s (${retries} of ${config.retry.attempts}).`;
        await ctx.log(record.turns, { type: "notice", level: "info", message });
        await ctx.update({ lastError: message });
        return (await pause(delayMs, ctx.signal)) ? { kind: "again" } : { kind: "over" };
      }
      return { kind: "over" };
    },
    // The policy of agent turns: the session moves to the next login and goes on there.
    moveTo: async ({ from, to, result, why }) => {
      const said = why === "signed_out" ? "is not signed in" : "hit its usage limit";
      // The next turn's memory opens while the session is copied, so its CLI starts sooner. Only
      // when that turn follows at once and resumes: it opens as the turn would (the next turn, on
      // `to`), and a session that does not go along starts anew, which opens its own.
      const goesOn = config.failover.resend !== "ask" && record.sessionId !== undefined;
      const nextMemory = goesOn
        ? openMemoryTurn({ ...record, account: to.label }, record.turns + 1, true, canWriteMemory(record, harness))
        : undefined;
      // A memory that cannot open is the next turn's to report, when it tries again.
      nextMemory?.catch(() => undefined);
      const moved = await moveSession(ctx, harness, from, to, `${from.label} ${said}`);
      const memory = await nextMemory?.catch(() => undefined);
      if (moved.carried && memory) ctx.firstMemory = memory;
      // Work done, or the message itself, carried in the session: go on from there. Else the message again.
      continuation = moved.carried && (continuation || result.progressed || moved.heldPrompt);
      if (config.failover.resend !== "ask") return true;
      await ctx.log(record.turns, {
        type: "notice",
        level: "info",
        message: `The conversation is on login ${to.label} now. Send your message again to go on (failover.resend is "ask").`,
      });
      return false;
    },
  });
  const { result, notes } = attempts;
  const { end, status } = result;
  if (attempts.stopped) return { end, status: "idle", notes };
  if (attempts.noRoom !== undefined) {
    const waiting = await onNoRoom(ctx, harness, attempts.noRoom, {
      continuation: continuation || result.progressed,
      resetGiven: attempts.limit?.resetGiven ?? true,
      ...(attempts.limit ? { limitSeen: { login: attempts.limit.login, until: attempts.limit.until } } : {}),
    });
    return waiting ? { end, notes } : { end, status, notes };
  }
  return { end, status, notes };
}

/**
 * No login has room: wait for the earliest reset and go on then (once per message), or say what
 * the user can do when the wait is off, already spent, or impossible (every login signed out).
 * True when it wrote the agent's status (limited, with or without a planned wait).
 */
async function onNoRoom(
  ctx: ChainContext,
  harness: Harness,
  noRoom: unknown,
  /** `limitSeen`: the last limit a login of this message hit, and its reset. */
  state: { continuation: boolean; resetGiven: boolean; limitSeen?: { login: string; until: string } },
): Promise<boolean> {
  const { record, config } = ctx;
  const elsewhere = await ctx.logins.roomElsewhere(harness, record.name);
  const tail = elsewhere ?? "No other installed harness has room either.";
  // A login of this message hit its limit: wait for a reset, even when the last login tried was
  // signed out, or the reset passed while the failover ran (a reset seconds away, a slow machine).
  const limited = state.limitSeen !== undefined;
  if (ctx.resumed && limited) {
    const message = `Still limited after the reset, so Offrun does not try again by itself (once per message). Send a message to try again. ${tail}`;
    await ctx.log(record.turns, {
      type: "reset_wait",
      phase: "gave_up",
      resumesAt: new Date().toISOString(),
      account: record.account,
      message,
    });
    await ctx.update({ status: "limited", lastError: message });
    return true;
  }
  let plan: ResetWaitPlan | undefined;
  if (limited && config.failover.resumeAtReset) {
    plan = planResetWait(await ctx.logins.candidates(harness), {
      harnessName: harness.displayName,
      resetGiven: state.resetGiven,
      lastLogin: record.account,
      ...(state.limitSeen ? { lastLimit: state.limitSeen } : {}),
    });
  }
  if (!plan?.at) {
    const why = plan?.message ?? describeError(noRoom);
    await ctx.log(record.turns, { type: "notice", level: "warning", message: `${why} ${tail}` });
    return false;
  }
  await ctx.update({
    status: "limited",
    lastError: plan.message,
    resume: {
      at: plan.at,
      account: plan.login,
      prompt: ctx.prompt,
      continuation: state.continuation,
      resetGiven: plan.resetGiven,
    },
  });
  await ctx.log(record.turns, {
    type: "reset_wait",
    phase: "waiting",
    resumesAt: plan.at,
    account: plan.login,
    message: `${plan.message} ${elsewhere ? `Or now: ${elsewhere}` : ""}`.trim(),
  });
  return true;
}
