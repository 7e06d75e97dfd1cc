import { findHarness } from "../../harnesses/registry.js";
import type { Harness } from "../../harnesses/types.js";
import { describeError, OffrunError } from "../foundation/errors.js";
import type { EventDraft } from "../foundation/events.js";
import type { LoginPicker } from "../logins/picker.js";
import type { AgentRecord, ProjectConfig } from "../foundation/model.js";
import { loadProjectConfig } from "../foundation/project.js";
import { planResetWait } from "./reset-wait.js";
import type { ChainContext } from "./turn-chain.js";

/** A login on probation after its reset takes one turn at a time: look again this soon. */
const PROBATION_RECHECK_MS = 30_000;

export interface ResumeContext {
  record: AgentRecord;
  env: NodeJS.ProcessEnv;
  logins: LoginPicker;
  requireBinary(harness: Harness): Promise<string>;
  log(turn: number, event: EventDraft): Promise<void>;
  update(changes: Partial<AgentRecord>): Promise<void>;
  /** Arms the wait again for `at` (no request was made). */
  waitAgain(at: string): void;
  /** Starts the message again; resolves once the turn holds its login. */
  begin(
    prompt: string,
    binary: string,
    config: ProjectConfig,
    resumed: NonNullable<ChainContext["resumed"]>,
  ): Promise<void>;
}

/**
 * The wait of a limited agent came due. The login to go on with is chosen now, not when the wait
 * began: another agent may have taken the login that reset, or a reading may have moved a reset.
 * Nothing is sent while no login has room: the wait is armed again for the next reset (or, when
 * a login that just reset is on probation with another agent's turn, a little later). Returns
 * `held`, settled once the resumed turn holds its login, or undefined when nothing started.
 */
export async function resumeAfterReset(ctx: ResumeContext): Promise<{ held: Promise<void> } | undefined> {
  const { record } = ctx;
  const resume = record.resume;
  if (!resume) return undefined;
  let harness: Harness;
  let binary: string;
  let config: ProjectConfig;
  try {
    harness = await findHarness(record.harness, { project: record.project, env: ctx.env });
    [binary, config] = await Promise.all([ctx.requireBinary(harness), loadProjectConfig(record.project)]);
  } catch (error) {
    await giveUp(ctx, `Could not go on after the reset: ${describeError(error)}`);
    return undefined;
  }
  let login: string;
  let passedBy: string | undefined;
  try {
    // The login the wait named, when it can run; another only when it cannot (and the log says why).
    const pick = await ctx.logins.choose(harness, { prefer: resume.account });
    login = pick.login.label;
    passedBy = pick.ranking.find((r) => r.label === resume.account)?.skipped;
  } catch (error) {
    const candidates = await ctx.logins.candidates(harness);
    if (candidates.some((c) => c.quota.recovering && c.signIn?.state !== "signed-out")) {
      ctx.waitAgain(new Date(Date.now() + PROBATION_RECHECK_MS).toISOString());
      return undefined;
    }
    const plan = planResetWait(candidates, { harnessName: harness.displayName, resetGiven: true });
    if (plan.at && error instanceof OffrunError && error.kind === "usage_limit") {
      // A later reset became known while it waited: wait for that one instead.
      await ctx.update({ resume: { ...resume, at: plan.at, account: plan.login }, lastError: plan.message });
      ctx.waitAgain(plan.at);
      return undefined;
    }
    await giveUp(ctx, `${describeError(error)} Offrun stopped waiting; send a message to go on.`);
    return undefined;
  }
  const from = record.account;
  await ctx.update({ resume: undefined });
  await ctx.log(record.turns, {
    type: "reset_wait",
    phase: "resumed",
    resumesAt: resume.at,
    account: login,
    message: `Went on after the reset on login ${login}${login === from ? "" : ` (was ${from})`}, ${resume.continuation ? "from where the limited turn stopped" : "with your message"}.${login !== resume.account ? ` Not on ${resume.account}, as planned: ${passedBy ?? "it is no longer a login"}.` : ""}`,
  });
  // Wrapped: an async function would wait for a promise it returns, and the caller's lock must not.
  return { held: ctx.begin(resume.prompt, binary, config, { continuation: resume.continuation, login }) };
}

async function giveUp(ctx: ResumeContext, message: string): Promise<void> {
  const resume = ctx.record.resume!;
  await ctx.update({ resume: undefined, lastError: message });
  await ctx.log(ctx.record.turns, {
    type: "reset_wait",
    phase: "gave_up",
    resumesAt: resume.at,
    account: resume.account,
    message,
  });
}
