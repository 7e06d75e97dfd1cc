import { diskFullMessage, isDiskFull } from "../foundation/disk-full.js";
import { describeError } from "../foundation/errors.js";
import type { EventDraft, TurnEndEvent } from "../foundation/events.js";
import type { AgentRecord, ProjectConfig } from "../foundation/model.js";
import type { LoginPicker } from "../logins/picker.js";
import type { ProcessRunner } from "../foundation/runner.js";
import { askUser, PendingRequests } from "./approvals.js";
import { agentKey, type AgentJournal } from "./journal.js";
import { setLiveHooks } from "./live-turn.js";
import { ResetWaits } from "./reset-timers.js";
import { runTurnChain, type ChainContext } from "./turn-chain.js";
import type { CompanionStop } from "./turn-stop.js";

interface RunningTurn {
  controller: AbortController;
  done: Promise<TurnEndEvent>;
  /** The chain is done with the message and only writes how it ended. */
  closing: boolean;
}

/**
 * The turns this companion runs, one per agent at most: each user message carried to its end by
 * the turn chain (failover, retries, the wait for a reset), with the approvals it waits on and
 * the timers of agents waiting for a reset. The supervisor decides what to run; this runs it.
 */
export class RunningTurns {
  private readonly running = new Map<string, RunningTurn>();
  /** Approvals and questions of live turns that wait for the user. */
  readonly pending = new PendingRequests();
  /** Agents whose every login is limited, waiting for the earliest reset to go on by themselves. */
  readonly waits: ResetWaits;

  constructor(
    private readonly options: {
      env: NodeJS.ProcessEnv;
      /** Where agents' CLIs run (see foundation/runner.ts). */
      runner: ProcessRunner;
      logins: LoginPicker;
      journal: AgentJournal;
      /** A wait for a reset came due. */
      onResetDue(root: string, name: string): Promise<void>;
    },
  ) {
    this.waits = new ResetWaits((root, name) => options.onResetDue(root, name));
  }

  has(root: string, name: string): boolean {
    return this.running.has(agentKey(root, name));
  }

  /**
   * Waits for a chain that is done with its message and only closing (notes on its login, the
   * status write): over for the user, so a message sent the moment the agent shows idle is not
   * refused as "still working" (seen in CI, under load). A short wait, never a whole turn.
   */
  async closed(root: string, name: string): Promise<void> {
    const running = this.running.get(agentKey(root, name));
    if (running?.closing) await running.done;
  }

  /** Resolves when the agent's turn ends; at once (undefined) when none runs here. */
  wait(root: string, name: string): Promise<TurnEndEvent | undefined> | undefined {
    return this.running.get(agentKey(root, name))?.done;
  }

  /** Stops the agent's turn (the CLI's whole process group) and waits for its end. */
  async stop(root: string, name: string): Promise<void> {
    const running = this.running.get(agentKey(root, name));
    if (!running) return;
    running.controller.abort();
    await running.done;
  }

  get size(): number {
    return this.running.size;
  }

  begin(
    record: AgentRecord,
    prompt: string,
    binary: string,
    config: ProjectConfig,
    resume: Pick<ChainContext, "resumed" | "onDispatched" | "firstMemory" | "carryOver"> = {},
  ): Promise<TurnEndEvent> {
    const { journal } = this.options;
    const controller = new AbortController();
    const agent = agentKey(record.project, record.name);
    const log = journal.log.bind(journal, record);
    const update = journal.update.bind(journal, record);
    const turnsBefore = record.turns;
    const unsent: EventDraft = resume.resumed
      ? { type: "notice", level: "info", message: `Offrun asked the agent to go on: "${prompt}"` }
      : { type: "user_message", text: prompt };
    setLiveHooks(record, {
      ask: (turn, request, signal) =>
        askUser({ pending: this.pending, agent, record, turn, config, signal, log, update }, request),
    });
    const done = runTurnChain({
      record,
      prompt,
      binary,
      config,
      signal: controller.signal,
      env: this.options.env,
      runner: this.options.runner,
      logins: this.options.logins,
      log,
      update,
      onClosing: () => {
        const running = this.running.get(agent);
        if (running) running.closing = true;
      },
      ...resume,
    })
      // Before its turn began (the sandbox refused to open), the message is not in the log yet.
      .catch((error: unknown) => this.failTurn(record, error, record.turns === turnsBefore ? unsent : undefined))
      .finally(() => {
        this.running.delete(agent);
        // The chain planned a wait for the reset: arm it here, where it can be cancelled.
        if (record.resume) this.waits.schedule(record.project, record.name, record.resume.at);
      });
    this.running.set(agent, { controller, done, closing: false });
    return done;
  }

  /** Cancels an agent's wait for a reset; its message is not sent again by itself. */
  async endWait(record: AgentRecord, message: string): Promise<void> {
    this.waits.cancel(record.project, record.name);
    const resume = record.resume;
    if (!resume) return;
    await this.options.journal.update(record, { resume: undefined, lastError: message });
    await this.options.journal.log(record, record.turns, {
      type: "reset_wait",
      phase: "cancelled",
      resumesAt: resume.at,
      account: resume.account,
      message,
    });
  }

  /** Stops every running turn and every wait (companion shutdown). */
  async shutdown(reason: CompanionStop): Promise<void> {
    this.waits.close();
    const turns = [...this.running.values()];
    for (const turn of turns) turn.controller.abort(reason);
    await Promise.allSettled(turns.map((t) => t.done));
  }

  /**
   * A turn that failed inside Offrun (a log write on a full disk, a spawn error) still ends with
   * one terminal event where that can be written, and never takes the companion down.
   */
  private async failTurn(record: AgentRecord, error: unknown, unsent?: EventDraft): Promise<TurnEndEvent> {
    const { journal } = this.options;
    // A full disk is the user's to fix (a session copied on failover, a record): said as that.
    const reason = isDiskFull(error)
      ? await diskFullMessage(record.project, error)
      : `Offrun could not run this turn: ${describeError(error)}`;
    // A turn that never began is still one: the user's message and its end go in under its number.
    const turn = unsent === undefined ? record.turns : record.turns + 1;
    const end: TurnEndEvent = { type: "turn_end", outcome: "failed", reason, at: new Date().toISOString(), turn };
    if (unsent !== undefined) {
      await journal.update(record, { turns: turn }).catch(() => undefined);
      await journal.log(record, turn, unsent).catch(() => undefined);
    }
    await journal.log(record, turn, end).catch(() => undefined);
    await journal.update(record, { status: "failed", pid: undefined, lastError: reason }).catch(() => undefined);
    return end;
  }
}
