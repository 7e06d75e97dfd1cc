import { randomUUID } from "node:crypto";
import type { Harness, TurnInput } from "../../harnesses/types.js";
import type { Login } from "../foundation/login-model.js";
import { describeError, type ErrorKind } from "../foundation/errors.js";
import type { EventDraft, ParsedEvent, QuotaWindow } from "../foundation/events.js";
import { promptInput, runAttempts, type LoginAttempt } from "../agents/attempts.js";
import { runCli } from "../agents/cli-run.js";
import { isSignedOut } from "../agents/turn.js";
import type { ProcessRunner } from "../foundation/runner.js";
import type { LoginPicker } from "../logins/picker.js";
import type { ProjectConfig } from "../foundation/model.js";
import type { KilledBecause } from "../foundation/watchdog.js";
import { cachedLoginQuota } from "../quota/pipeline.js";

/**
 * How much of the reviewer's stderr its parser gets. More than process.ts keeps (8 KB): a CLI may
 * tell a refused write only on stderr, early, and later log lines must not push it out.
 */
const STDERR_KEPT_CHARS = 1_000_000;

type TurnEndDraft = Extract<ParsedEvent, { type: "turn_end" }>;

export interface ReviewerRequest {
  harness: Harness;
  binary: string;
  /** The login to start on (already picked: pinned, configured or the one with most room). */
  login: Login;
  model?: string;
  cwd: string;
  prompt: string;
  outputSchema: NonNullable<TurnInput["outputSchema"]>;
  config: ProjectConfig;
  logins: LoginPicker;
  signal: AbortSignal;
  /** Where the reviewer's CLI runs (see foundation/runner.ts). */
  runner: ProcessRunner;
  /** Run inside the sandbox (the author is sandboxed): the project, and a name for its folder. */
  sandbox?: { project: string; name: string };
  /** The user trusted the repository (`TurnInput.workspaceTrusted`). */
  workspaceTrusted?: boolean;
  /** Every event of every attempt, as it arrives (the reviewer's transcript). */
  record(login: Login, event: EventDraft): Promise<void>;
}

export interface ReviewerRun {
  login: Login;
  end: TurnEndDraft;
  /** The reviewer's last text of the attempt that ended the run. */
  finalText?: string;
  /** Tool uses the CLI refused (a write in its read-only mode), over all attempts. */
  denials: { tool: string; input: unknown }[];
  tokens?: { input: number; output: number; costUsd?: number };
  quotaBefore: QuotaWindow[];
  quotaAfter: QuotaWindow[];
  /** Logins that hit their usage limit or were not signed in, in order, before `login`. */
  failedOver: string[];
  /** Of those, the ones that were not signed in. */
  signedOut: string[];
}

/** One attempt of the reviewer on one login. */
export interface ReviewerAttempt {
  end: TurnEndDraft;
  /** What the CLI's stream said went wrong (a login not signed in moves the review on). */
  errorKind?: ErrorKind;
  finalText?: string;
  denials: ReviewerRun["denials"];
  tokens?: ReviewerRun["tokens"];
}

/**
 * Runs the reviewer's one turn read-only (Planner mode flags of its harness, no extra writable
 * folders). When the login hits its usage limit or is not signed in, the review starts again on the
 * next login of the same CLI with room (the attempt engine's loop, as for any agent's turn); each
 * login is tried once.
 */
export async function runReviewer(
  request: ReviewerRequest,
  /** Runs the reviewer once on one login: its CLI (a test gives its own work). */
  once: (request: ReviewerRequest, login: LoginAttempt) => Promise<ReviewerAttempt> = runOnce,
): Promise<ReviewerRun> {
  const failedOver: string[] = [];
  const signedOut: string[] = [];
  const denials: ReviewerRun["denials"] = [];
  const quotaBefore = (await cachedLoginQuota(request.login)).windows;
  const attempts = await runAttempts<ReviewerAttempt>({
    harness: request.harness,
    logins: request.logins,
    first: request.login,
    signal: request.signal,
    runner: request.runner,
    // The scratch worktree is the reviewer's whole world, read-only; its login's home opens for it.
    ...(request.sandbox
      ? {
          sandbox: {
            record: { ...request.sandbox, worktree: request.cwd, mode: "plan" },
            config: request.config,
            writesMemory: false,
            warn: (login, message) => request.record(login, { type: "notice", level: "warning", message }),
          },
        }
      : {}),
    attempt: async (login) => {
      const attempt = await once(request, login);
      denials.push(...attempt.denials);
      return attempt;
    },
    judge: async (attempt, login) => {
      const { end } = attempt;
      if (end.outcome === "completed" || end.outcome === "limited") return { kind: end.outcome };
      if (!isSignedOut(attempt)) return { kind: "over" };
      await request.record(login, {
        type: "notice",
        level: "warning",
        message: `Login ${login.label} is not signed in, so Offrun marked it signed out and starts the review again on the next login. Sign it in again with \`offrun logins login ${request.harness.id} ${login.label}\`.`,
      });
      return { kind: "signed_out", reason: end.reason ?? "the review ended not logged in" };
    },
    // The policy of reviews: nothing moves to the next login; the review starts again there.
    moveTo: async ({ from, why }) => {
      failedOver.push(from.label);
      if (why === "signed_out") signedOut.push(from.label);
      return true;
    },
  });
  await attempts.notes;
  const { result, login: endedOn } = attempts;
  const end =
    attempts.noRoom === undefined
      ? result.end
      : { ...result.end, reason: `${result.end.reason ?? "Usage limit."} ${describeError(attempts.noRoom)}` };
  return {
    login: endedOn,
    end,
    ...(result.finalText === undefined ? {} : { finalText: result.finalText }),
    denials,
    ...(result.tokens ? { tokens: result.tokens } : {}),
    quotaBefore,
    quotaAfter: (await cachedLoginQuota(endedOn)).windows,
    failedOver,
    signedOut,
  };
}

async function runOnce(request: ReviewerRequest, login: LoginAttempt): Promise<ReviewerAttempt> {
  const { harness, config } = request;
  const { login: current } = login;
  const input: TurnInput = {
    ...promptInput(request.prompt),
    // Planner mode is each harness's read-only mode: the CLI itself refuses writes.
    mode: "plan",
    cwd: request.cwd,
    binary: request.binary,
    ...(login.loginHome ? { loginHome: login.loginHome } : {}),
    ...(harness.choosesSessionId ? { newSessionId: randomUUID() } : {}),
    ...(request.model ? { model: request.model } : {}),
    outputSchema: request.outputSchema,
    ...(request.sandbox ? { sandboxed: true } : {}),
    ...(request.workspaceTrusted ? { workspaceTrusted: true } : {}),
    env: login.env,
  };
  let stderr = "";
  let end: TurnEndDraft | undefined;
  let finalText: string | undefined;
  let errorKind: ErrorKind | undefined;
  let tokens: ReviewerRun["tokens"];
  const denials: ReviewerRun["denials"] = [];
  const writes: Promise<void>[] = [];
  const handle = (events: ParsedEvent[]) => {
    for (const event of events) {
      // A CLI may learn of refused writes only after the turn ended (Codex: from its files on exit):
      // they still belong to this attempt.
      if (end && event.type !== "denial") continue;
      for (const refusal of login.refusals?.inspect(event) ?? []) {
        writes.push(request.record(current, refusal).catch(() => undefined));
      }
      writes.push(request.record(current, event).catch(() => undefined));
      if (event.type === "text") finalText = event.text;
      if (event.type === "tool_call") finalText = undefined;
      if (event.type === "denial") denials.push({ tool: event.tool, input: event.input });
      if (event.type === "error") errorKind = event.kind;
      // Usage events are running totals per turn (the CLI's result line): the last one counts.
      if (event.type === "usage") {
        tokens = {
          input: event.inputTokens,
          output: event.outputTokens,
          ...(event.costUsd === undefined ? {} : { costUsd: event.costUsd }),
        };
      }
      if (event.type === "quota" || event.type === "limit_hit") {
        writes.push(login.observe(event).catch(() => undefined));
      }
      if (event.type === "turn_end") end = event;
    }
  };
  await runCli({
    harness,
    runner: login.runner,
    input,
    config,
    signal: request.signal,
    // ACP agents have no one-way mode: every request they make is refused, since a reviewer only reads.
    ...(harness.liveOnly && harness.live
      ? {
          live: {
            live: harness.live,
            turn: 1,
            hooks: { ask: async () => ({ kind: "deny", reason: "A reviewer is read-only." }) },
          },
        }
      : {}),
    // Codex learns of the writes its sandbox refused from its rollout, read at the end.
    parserReadsInput: true,
    handle,
    onStderr: (chunk) => {
      stderr = (stderr + chunk).slice(-STDERR_KEPT_CHARS);
    },
    stderrTail: () => stderr,
    killedEnd: (why) => ({
      type: "turn_end",
      outcome: why === "cancelled" ? "cancelled" : "failed",
      reason: killedReason(why, config),
    }),
    noResult: "The reviewer's CLI ended without a result.",
  });
  await Promise.all(writes);
  return {
    end: end!,
    ...(errorKind ? { errorKind } : {}),
    ...(finalText === undefined ? {} : { finalText }),
    denials,
    ...(tokens ? { tokens } : {}),
  };
}

function killedReason(why: KilledBecause, config: ProjectConfig): string {
  switch (why) {
    case "cancelled":
      return "The review was stopped.";
    case "idle":
      return `The reviewer printed nothing for ${config.idleTimeoutMinutes} min, so Offrun ended it.`;
    case "timeout":
      return `The review ran longer than ${config.turnTimeoutMinutes} min, so Offrun ended it.`;
  }
}
