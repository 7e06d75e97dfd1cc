import { resolveHarness } from "../harnesses/registry.js";
import type { Harness } from "../harnesses/types.js";
import type { Account } from "./account-model.js";
import { findAccount } from "./accounts.js";
import { describeError } from "./errors.js";
import type { ParsedEvent, TurnEndEvent } from "./events.js";
import type { LoginPicker } from "./logins.js";
import { RETRY_JITTER, type AgentRecord, type ProjectConfig } from "./model.js";
import { accountKey, markHealthy, markLimited, recordObserved } from "./quota/ledger.js";
import { runTurn, type TurnResult } from "./turn.js";

/** A login whose limit message named no reset time is treated as out for this long. */
const UNKNOWN_RESET_MS = 60 * 60_000;

export interface ChainContext {
  record: AgentRecord;
  prompt: string;
  binary: string;
  config: ProjectConfig;
  signal: AbortSignal;
  env: NodeJS.ProcessEnv;
  logins: LoginPicker;
  log(turn: number, event: ParsedEvent): Promise<void>;
  update(changes: Partial<AgentRecord>): Promise<void>;
}

/**
 * One user message, carried to its end: the turn runs on the agent's login; when that login hits
 * its usage limit the session moves to the next login with room and the message is sent again
 * there; a transient 429 is tried again after a capped, jittered pause. Each login is tried at
 * most once per message, so a failover never loops.
 */
export async function runTurnChain(ctx: ChainContext): Promise<TurnEndEvent> {
  const { record, config } = ctx;
  const harness = await resolveHarness(record.harness, record.project, ctx.env);
  const tried = new Set<string>();
  let retries = 0;
  for (;;) {
    const account = await findAccount(harness, record.account, ctx.env);
    tried.add(accountKey(account));
    const { end, rateLimited } = await runOn(ctx, harness, account);
    if (ctx.signal.aborted || end.outcome === "cancelled") return end;
    if (end.outcome === "completed") {
      await markHealthy(account).catch(() => undefined);
      return end;
    }
    if (end.outcome === "limited") {
      const next = await moveToNextLogin(ctx, harness, account, tried);
      if (!next) return end;
      if (config.failover.resend === "ask") {
        await ctx.log(record.turns, {
          type: "notice",
          level: "info",
          message: `The conversation is on login ${next.label} now. Send your message again to go on (failover.resend is "ask").`,
        });
        await ctx.update({ status: "idle" });
        return end;
      }
      continue;
    }
    if (rateLimited && retries < config.retry.attempts) {
      retries += 1;
      const delayMs = backoffMs(retries, config.retry);
      const message = `Rate limited (not a usage limit). Trying again in ${Math.round(delayMs / 1000)} s (${retries} of ${config.retry.attempts}).`;
      await ctx.log(record.turns, { type: "notice", level: "info", message });
      await ctx.update({ status: "working", lastError: message });
      if (!(await pause(delayMs, ctx.signal))) return end;
      continue;
    }
    return end;
  }
}

async function runOn(ctx: ChainContext, harness: Harness, account: Account): Promise<TurnResult> {
  const release = ctx.logins.hold(account);
  try {
    return await runTurn({
      record: ctx.record,
      prompt: ctx.prompt,
      harness,
      binary: ctx.binary,
      config: ctx.config,
      signal: ctx.signal,
      env: ctx.logins.processEnv(account, harness),
      ...(account.isDefault ? {} : { accountHome: account.home }),
      log: ctx.log,
      update: ctx.update,
      observe: (event) => observe(account, event),
    });
  } finally {
    release();
  }
}

/** What a stream says about quota goes into the ledger; a limit marks the login out until its reset. */
async function observe(account: Account, event: Extract<ParsedEvent, { type: "quota" | "limit_hit" }>): Promise<void> {
  const now = new Date().toISOString();
  if (event.type === "quota") {
    await recordObserved(account, { windows: event.windows, observedAt: event.windows[0]?.observedAt ?? now });
    return;
  }
  const until = event.resetsAt ?? new Date(Date.now() + UNKNOWN_RESET_MS).toISOString();
  await markLimited(account, until, event.message);
}

/**
 * Moves the conversation to the next login with room: the CLI's own session file is copied into
 * that login's home (the whole history, tool calls included) and the agent is switched to it.
 * Returns undefined, after saying what the user can do, when no login has room.
 */
async function moveToNextLogin(
  ctx: ChainContext,
  harness: Harness,
  from: Account,
  tried: Set<string>,
): Promise<Account | undefined> {
  const { record } = ctx;
  let next: Account;
  try {
    next = (await ctx.logins.choose(harness, { exclude: tried })).account;
  } catch (error) {
    const elsewhere = await ctx.logins.roomElsewhere(harness, record.name);
    await ctx.log(record.turns, {
      type: "notice",
      level: "warning",
      message: `${describeError(error)} ${elsewhere ?? "No other installed harness has room either."}`,
    });
    return undefined;
  }
  tried.add(accountKey(next));
  let carried = "the session was copied, so the whole conversation goes on";
  if (record.sessionId) {
    try {
      await harness.copySession({
        fromHome: from.home,
        toHome: next.home,
        sessionId: record.sessionId,
        cwd: record.worktree,
      });
    } catch (error) {
      carried = `the session could not be copied (${describeError(error)}), so the CLI starts a new session there; the files in the worktree are all kept`;
      await ctx.update({ sessionId: undefined });
    }
  }
  await ctx.log(record.turns, {
    type: "account_switch",
    from: from.label,
    to: next.label,
    reason: `${from.label} hit its usage limit; ${carried}.`,
  });
  await ctx.update({ account: next.label });
  return next;
}

/** Exponential backoff with jitter, capped; the cap plus its jitter stays below the turn timeout (checked in the config). */
export function backoffMs(attempt: number, retry: ProjectConfig["retry"], random = Math.random): number {
  const capped = Math.min(retry.baseSeconds * 2 ** (attempt - 1), retry.maxSeconds);
  return Math.round(capped * (1 + RETRY_JITTER * random()) * 1000);
}

/** Waits, or stops early when the turn is stopped; true when the full pause passed. */
function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
