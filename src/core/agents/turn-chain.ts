import { findHarness } from "../../harnesses/registry.js";
import type { Harness } from "../../harnesses/types.js";
import type { Account } from "../foundation/account-model.js";
import { findAccount } from "../logins/accounts.js";
import { describeError } from "../foundation/errors.js";
import type { ParsedEvent, TurnEndEvent } from "../foundation/events.js";
import type { LoginPicker } from "../logins/picker.js";
import type { AgentRecord, AgentStatus, ProjectConfig } from "../foundation/model.js";
import { backoffMs, pause } from "./backoff.js";
import { accountKey, markHealthy, markLimited, recordObserved } from "../quota/ledger.js";
import { planResetWait, type ResetWaitPlan } from "./reset-wait.js";
import { moveSession, moveToNextLogin } from "./session-move.js";
import { markSignedIn, markSignedOut } from "../logins/sign-in.js";
import { checksDone, turnStarts } from "../logins/home-use.js";
import { isSignedOut, runTurn, type TurnResult } from "./turn.js";
import type { MemoryTurn } from "../memory/turn.js";
import type { ProcessRunner } from "../foundation/runner.js";
import { openSandbox, type SandboxTurn } from "../sandbox/runner.js";

/** A login whose limit message named no reset time is treated as out for this long. */
export const UNKNOWN_RESET_MS = 60 * 60_000;
const MINUTE_MS = 60_000;

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
  log(turn: number, event: ParsedEvent): Promise<void>;
  update(changes: Partial<AgentRecord>): Promise<void>;
  /**
   * The message goes on after a wait for a reset: it starts with the continuation when the limited
   * turn had done work, on `account` (moving the session there first), and waits no second time.
   */
  resumed?: { continuation: boolean; account: string };
  /** Called once, when the first turn has taken its login (a queue of resumes waits for it). */
  onDispatched?: () => void;
  /** Called once, when the chain is done with the message and only writes how it ended. */
  onClosing?: () => void;
  /** The first turn's memory, opened ahead (a new agent's, during its checkout). */
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
export async function runTurnChain(ctx: ChainContext): Promise<TurnEndEvent> {
  const notes: Promise<unknown>[] = [];
  // What a turn says about its login (signed in, healthy) is kept alongside the next step, not
  // before it: a failover does not wait for these writes.
  const note = (pending: Promise<void>) => notes.push(pending.catch(() => undefined));
  const { end, status } = await carry(ctx, note);
  ctx.onClosing?.();
  await Promise.all(notes);
  if (status) await ctx.update({ status });
  return end;
}

/** The chain itself; `status` is what the agent's status becomes, unless the chain already wrote it. */
async function carry(
  ctx: ChainContext,
  note: (pending: Promise<void>) => void,
): Promise<{ end: TurnEndEvent; status?: AgentStatus }> {
  const { record, config } = ctx;
  const harness = await findHarness(record.harness, { project: record.project, env: ctx.env });
  const tried = new Set<string>();
  let retries = 0;
  let continuation = ctx.resumed?.continuation ?? false;
  let resetGiven = true;
  // A login of this chain hit its limit: when the last one tried then turns out signed out, the
  // agent still waits for that reset (seen in CI: a limit, then an unknown Default login that was
  // not signed in, and no wait at all).
  let limitSeen: { account: string; until: string } | undefined;
  if (ctx.resumed && ctx.resumed.account !== record.account) {
    const from = await findAccount(harness, record.account, ctx.env);
    const to = await findAccount(harness, ctx.resumed.account, ctx.env);
    const moved = await moveSession(ctx, harness, from, to, `went on after the reset on ${to.label}`);
    if (!moved.carried) continuation = false;
  }
  for (;;) {
    const account = await findAccount(harness, record.account, ctx.env);
    tried.add(accountKey(account));
    const prompt = continuation ? CONTINUATION_PROMPT : ctx.prompt;
    const result = await runOn(ctx, harness, account, prompt, continuation, (given, until) => {
      resetGiven = given;
      limitSeen = { account: account.label, until };
    });
    const { end, status } = result;
    if (ctx.signal.aborted || end.outcome === "cancelled") return { end, status };
    if (end.outcome === "completed") {
      note(markHealthy(account));
      note(markSignedIn(account));
      return { end, status };
    }
    const signedOut = isSignedOut(result);
    if (end.outcome === "limited" || signedOut) {
      if (signedOut) {
        note(markSignedOut(account, end.reason ?? "a turn ended not logged in"));
        await ctx.log(record.turns, {
          type: "notice",
          level: "warning",
          message: `Login ${account.label} is not signed in, so Offrun marked it signed out and goes on with the next login. Sign it in again with \`offrun accounts login ${harness.id} ${account.label}\`.`,
        });
      } else note(markSignedIn(account)); // a limit is an answer: the sign-in works
      const why = signedOut ? "is not signed in" : "hit its usage limit";
      const moved = await moveToNextLogin(ctx, harness, account, tried, why);
      if ("noRoom" in moved) {
        const waiting = await onNoRoom(ctx, harness, moved.noRoom, {
          continuation: continuation || result.progressed,
          resetGiven,
          limitSeen,
        });
        return waiting ? { end } : { end, status };
      }
      // Work done, or the message itself, carried in the session: go on from there. Else the message again.
      continuation = moved.carried && (continuation || result.progressed || moved.heldPrompt);
      if (config.failover.resend === "ask") {
        await ctx.log(record.turns, {
          type: "notice",
          level: "info",
          message: `The conversation is on login ${moved.next.label} now. Send your message again to go on (failover.resend is "ask").`,
        });
        return { end, status: "idle" };
      }
      continue;
    }
    if (result.rateLimited && retries < config.retry.attempts) {
      retries += 1;
      const delayMs = backoffMs(retries, config.retry);
      const message = `Rate limited (not a usage limit). Trying again in ${Math.round(delayMs / 1000)} s (${retries} of ${config.retry.attempts}).`;
      await ctx.log(record.turns, { type: "notice", level: "info", message });
      await ctx.update({ lastError: message });
      if (!(await pause(delayMs, ctx.signal))) return { end, status };
      continue;
    }
    return { end, status };
  }
}

async function runOn(
  ctx: ChainContext,
  harness: Harness,
  account: Account,
  prompt: string,
  continuation: boolean,
  onLimit: (resetGiven: boolean, until: string) => void,
): Promise<TurnResult> {
  const release = ctx.logins.hold(account);
  ctx.onDispatched?.();
  const memory = ctx.firstMemory;
  ctx.firstMemory = undefined; // a second turn of the chain (a failover) opens its own
  let sandbox: SandboxTurn | undefined;
  // No status command starts in the home from now on; one already running there finishes first.
  const turnEnds = turnStarts(account.home);
  try {
    await checksDone(account.home);
    const env = ctx.logins.processEnv(account, harness);
    // A sandboxed agent's policy follows the login: a failover opens the next login's home, not this one's.
    if (ctx.record.sandbox) {
      const { record, config, runner: inner } = ctx;
      const warn = (message: string) => ctx.log(record.turns, { type: "notice", level: "warning", message });
      sandbox = await openSandbox({ record, harness, account, env, config, inner, warn });
    }
    return await runTurn({
      ...(memory ? { memory } : {}),
      ...(sandbox ? { refusals: sandbox.refusals } : {}),
      runner: sandbox?.runner ?? ctx.runner,
      record: ctx.record,
      prompt,
      continuation,
      ...(ctx.carryOver ? { carryOver: true } : {}),
      harness,
      binary: ctx.binary,
      config: ctx.config,
      signal: ctx.signal,
      env,
      ...(account.isDefault ? {} : { accountHome: account.home }),
      log: ctx.log,
      update: ctx.update,
      observe: (event) => observe(account, event, onLimit),
    });
  } finally {
    turnEnds();
    await sandbox?.close();
    release();
  }
}

/** What a stream says about quota goes into the ledger; a limit marks the login out until its reset. */
async function observe(
  account: Account,
  event: Extract<ParsedEvent, { type: "quota" | "limit_hit" }>,
  onLimit: (resetGiven: boolean, until: string) => void,
): Promise<void> {
  const now = Date.now();
  if (event.type === "quota") {
    const observedAt = event.windows[0]?.observedAt ?? new Date(now).toISOString();
    await recordObserved(account, { windows: event.windows, observedAt });
    return;
  }
  let reset = event.resetsAt === undefined ? undefined : Date.parse(event.resetsAt);
  // Texts such as Codex's "try again at 2:49 AM" name the minute: within it, the reset is its end.
  if (reset !== undefined && reset <= now && now - reset < MINUTE_MS) reset += MINUTE_MS;
  // A reset further in the past is no reset time at all (a clock or parsing problem): back off instead.
  const given = reset !== undefined && reset > now;
  const until = new Date(given ? reset! : now + UNKNOWN_RESET_MS).toISOString();
  onLimit(given, until);
  await markLimited(account, until, event.message);
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
  state: { continuation: boolean; resetGiven: boolean; limitSeen?: { account: string; until: string } },
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
      lastAccount: record.account,
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
      account: plan.account,
      prompt: ctx.prompt,
      continuation: state.continuation,
      resetGiven: plan.resetGiven,
    },
  });
  await ctx.log(record.turns, {
    type: "reset_wait",
    phase: "waiting",
    resumesAt: plan.at,
    account: plan.account,
    message: `${plan.message} ${elsewhere ? `Or now: ${elsewhere}` : ""}`.trim(),
  });
  return true;
}
