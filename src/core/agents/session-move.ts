import fs from "node:fs/promises";
import type { Harness } from "../../harnesses/types.js";
import type { Login } from "../foundation/login-model.js";
import { isDiskFull } from "../foundation/disk-full.js";
import { describeError } from "../foundation/errors.js";
import type { EventDraft } from "../foundation/events.js";
import type { AgentRecord } from "../foundation/model.js";
import type { ProcessRunner } from "../foundation/runner.js";
import { injectFault } from "../foundation/fault-points.js";

/** What a session move reads and writes of the agent (an agent's turn chain is one). */
export interface SessionMoveContext {
  record: AgentRecord;
  /** The user's message, looked for in the copied session. */
  prompt: string;
  runner: ProcessRunner;
  log(turn: number, event: EventDraft): Promise<void>;
  update(changes: Partial<AgentRecord>): Promise<void>;
}

/** Copies the session to `to` and switches the agent there; false when the session could not go along. */
export async function moveSession(
  ctx: SessionMoveContext,
  harness: Harness,
  from: Login,
  to: Login,
  reason: string,
): Promise<{ carried: boolean; heldPrompt: boolean }> {
  const { record } = ctx;
  let heldPrompt = false;
  let carried = true;
  let said = "the session was copied, so the whole conversation goes on";
  if (record.sessionId) {
    try {
      const copied = await harness.copySession({
        fromHome: from.home,
        toHome: to.home,
        sessionId: record.sessionId,
        cwd: record.worktree,
        runner: ctx.runner,
      });
      if (copied && ctx.prompt && (await holdsText(copied.file, ctx.prompt))) heldPrompt = true;
    } catch (error) {
      // No room for the copy: the turn ends saying so, and the session stays where it is.
      if (isDiskFull(error)) throw error;
      carried = false;
      said = `the session could not be copied (${describeError(error)}), so the CLI starts a new session there; the files in the worktree are all kept`;
      await ctx.update({ sessionId: undefined });
    }
  } else carried = false;
  injectFault("session-copy", `${record.project}/${record.name}`);
  await ctx.log(record.turns, {
    type: "account_switch",
    from: from.label,
    to: to.label,
    reason: `${reason}; ${said}.`,
  });
  await ctx.update({ account: to.label });
  return { carried, heldPrompt };
}

/**
 * Whether a copied session file already holds the user's message (as the CLI wrote it, JSON-escaped).
 * Claude Code and Codex write the message before the model answers, so even a turn limited at its
 * first request leaves it there: sending it again would put it in the conversation twice.
 */
async function holdsText(file: string, text: string): Promise<boolean> {
  const needle = JSON.stringify(text).slice(1, -1);
  try {
    return (await fs.readFile(file, "utf8")).includes(needle);
  } catch {
    return false;
  }
}

/**
 * A resumed turn whose CLI said it has no such conversation (its CLI ended before it wrote one, a
 * kill in its first second; or someone deleted it): the agent forgets the session, says so, and
 * the message goes again in a new session, which is handed the conversation so far from the chat
 * log. True when it did; once per message, so a CLI that keeps saying it cannot loop. An adapter
 * says so with a stream error of kind not_found (Claude Code's parser does, on "No conversation
 * found with session ID").
 */
export async function forgetMissingSession(
  ctx: Pick<SessionMoveContext, "record" | "log" | "update">,
  errorKind: string | undefined,
  alreadyOnce: boolean,
): Promise<boolean> {
  const { record } = ctx;
  if (errorKind !== "not_found" || record.sessionId === undefined || alreadyOnce) return false;
  await ctx.log(record.turns, {
    type: "notice",
    level: "warning",
    message: `The CLI has no conversation ${record.sessionId} to resume, so Offrun starts a new session and hands it the task and the conversation so far.`,
  });
  await ctx.update({ sessionId: undefined });
  return true;
}
