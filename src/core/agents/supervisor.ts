import fs from "node:fs/promises";
import path from "node:path";
import { DEFAULT_HARNESS_ID, findHarness } from "../../harnesses/registry.js";
import type { Decision, Harness } from "../../harnesses/types.js";
import { appendChat, listAgents, readAgent, readChat, writeAgent } from "./records.js";
import { buildHandoffPrompt } from "./handoff.js";
import { locateBinary } from "../foundation/binaries.js";
import { describeError, OffrunError } from "../foundation/errors.js";
import type { AgentEvent, ParsedEvent, TurnEndEvent } from "../foundation/events.js";
import { findRepoRoot, git } from "../git/repo.js";
import { createWorktree } from "../git/worktrees.js";
import { prepareMemory } from "../memory/turn.js";
import type { AgentRecord, ProjectConfig } from "../foundation/model.js";
import { validateAgentName } from "../foundation/names.js";
import { reserveAgent } from "./setup.js";
import { projectPaths } from "../foundation/paths.js";
import { isAlive, signalGroup } from "../foundation/pids.js";
import { ensureProjectDirs, knownProjects, loadProjectConfig, rememberProject } from "../foundation/project.js";
import { KeyedQueue } from "../foundation/queue.js";
import { runTurnChain, type ChainContext } from "./turn-chain.js";
import { LoginPicker } from "../logins/picker.js";
import { askUser, PendingRequests, rememberAlwaysAllow } from "./approvals.js";
import { setLiveHooks } from "./live-turn.js";
import { checkPrompt } from "./prompt-check.js";
import { removeScratch } from "../review/scratch.js";
import type { Decided, HandoffRequest, Started, StartRequest } from "./requests.js";
import { ResetWaits } from "./reset-timers.js";
import { resumeAfterReset } from "./resume.js";

/**
 * Owns agent turns: creates worktrees, spawns the CLI for each turn, appends every event to the
 * chat log as it arrives and keeps the agent record current. One per companion process.
 */
interface RunningTurn {
  controller: AbortController;
  done: Promise<TurnEndEvent>;
}

export class Supervisor {
  private readonly running = new Map<string, RunningTurn>();
  /** Serializes record and log writes per agent, and naming per project. */
  private readonly queue = new KeyedQueue();

  private readonly logins: LoginPicker;
  /** Approvals and questions of live turns that wait for the user. */
  private readonly pending = new PendingRequests();
  /** Agents whose every login is limited, waiting for the earliest reset to go on by themselves. */
  private readonly waits = new ResetWaits((root, name) => this.resumeNow(root, name));

  constructor(private readonly env: NodeJS.ProcessEnv = process.env) {
    this.logins = new LoginPicker(env);
  }

  async start(request: StartRequest): Promise<Started> {
    checkPrompt(request.prompt);
    if (request.name !== undefined) validateAgentName(request.name);
    const root = await findRepoRoot(request.project);
    const config = await loadProjectConfig(root);
    const harness = await findHarness(request.harness ?? config.defaultHarness ?? DEFAULT_HARNESS_ID, {
      project: root,
      env: this.env,
    });
    // Independent file reads and a PATH search: done together, since each start pays for them.
    const [binary, login] = await Promise.all([
      this.requireBinary(harness),
      this.logins.choose(harness, { label: request.account, force: request.force }),
      ensureProjectDirs(root),
    ]);

    // Reserve name and port under one lock so that concurrent starts never collide.
    const record = await this.queue.run(`project:${root}`, () =>
      reserveAgent({ root, request, harness: harness.id, account: login.account.label, config }),
    );

    try {
      // The memory lives in the main checkout, not the worktree: its files and snapshot are made
      // while git checks the worktree out, so the first turn only confirms them.
      const [created] = await Promise.all([
        createWorktree({
          root,
          agent: record.name,
          base: request.base,
          config,
          port: record.port,
          logFile: projectPaths(root).log(record.name),
        }),
        prepareMemory(root, record.name).catch(() => undefined),
      ]);
      Object.assign(record, { worktree: created.path, branch: created.branch, base: created.baseCommit });
      if (created.baseRef) record.baseRef = created.baseRef;
      await writeAgent(record);
    } catch (error) {
      await this.update(record, { status: "failed", lastError: describeError(error) });
      await this.log(record, 0, { type: "error", kind: kindOf(error), message: describeError(error) });
      throw error;
    }
    const firstTurn = record.turns + 1;
    this.beginTurn(record, request.prompt, binary, config);
    const warnings = login.warning ? [login.warning] : [];
    for (const message of warnings) await this.log(record, 1, { type: "notice", level: "warning", message });
    // Off the path to the spawn: only the dashboard and recovery read the list of projects.
    await rememberProject(root);
    return { agent: record, warnings, firstTurn };
  }

  /** The next turn of an existing agent, resuming the CLI's own session. */
  async send(project: string, name: string, prompt: string): Promise<Started> {
    checkPrompt(prompt);
    const root = await findRepoRoot(project);
    return this.queue.run(turnsKey(root, name), () => this.sendNow(root, name, prompt));
  }

  /**
   * Runs `task` while no turn of the agent runs or starts in this companion: refused while one
   * runs, and a message sent meanwhile waits for it, then reads the agent as `task` left it. For
   * changes a turn must not straddle: a switch of login that a message sent at the same moment
   * would otherwise begin on the old login (and then write the old login back into the record).
   */
  async whileIdle<T>(project: string, name: string, task: () => Promise<T>): Promise<T> {
    const root = await findRepoRoot(project);
    return this.queue.run(turnsKey(root, name), async () => {
      if (this.running.has(key(root, name))) {
        throw new OffrunError(
          "invalid_input",
          `${name} is in the middle of a turn. Wait for it to end, or \`offrun stop ${name}\`, then try again.`,
        );
      }
      return task();
    });
  }

  private async sendNow(root: string, name: string, prompt: string): Promise<Started> {
    const record = await readAgent(root, name);
    if (this.running.has(key(root, name))) {
      const waiting = this.pending.list(key(root, name)).length > 0;
      throw new OffrunError(
        "invalid_input",
        waiting
          ? `${name} is waiting for you: see \`offrun show ${name}\`, then \`offrun approve ${name}\` or \`offrun answer ${name} "..."\`.`
          : `${name} is still working on its turn. Wait for it, or \`offrun stop ${name}\`.`,
      );
    }
    if (record.status === "done") {
      throw new OffrunError(
        "invalid_input",
        `${name} was discarded and its worktree is gone. Start a new agent for new work (its conversation stays in \`offrun show ${name}\`).`,
      );
    }
    const config = await loadProjectConfig(root);
    const harness = await findHarness(record.harness, { project: root, env: this.env });
    const binary = await this.requireBinary(harness);
    if (record.resume) await this.endWait(record, "Your new message replaces the wait for the reset.");
    const firstTurn = record.turns + 1;
    this.beginTurn(record, prompt, binary, config);
    return { agent: record, warnings: [], firstTurn };
  }

  /**
   * A wait for a reset came due: the message goes on, on the login with room (one resume at a time
   * across agents, see ResetWaits). Under the agent's turn lock, so a message sent at that moment
   * and the resume never both start.
   */
  private async resumeNow(root: string, name: string): Promise<void> {
    let dispatched: { held: Promise<void> } | undefined;
    await this.queue.run(turnsKey(root, name), async () => {
      const record = await readAgent(root, name).catch(() => undefined);
      if (!record?.resume || this.running.has(key(root, name))) return;
      dispatched = await resumeAfterReset({
        record,
        env: this.env,
        logins: this.logins,
        requireBinary: (harness) => this.requireBinary(harness),
        log: (turn, event) => this.log(record, turn, event),
        update: (changes) => this.update(record, changes),
        waitAgain: (at) => this.waits.schedule(root, name, at),
        begin: (prompt, binary, config, resumed) => {
          let ready!: () => void;
          const held = new Promise<void>((resolve) => (ready = resolve));
          const done = this.beginTurn(record, prompt, binary, config, { resumed, onDispatched: ready });
          return Promise.race([held, done.then(() => undefined)]);
        },
      });
    });
    await dispatched?.held;
  }

  /** Cancels an agent's wait for a reset; its message is not sent again by itself. */
  private async endWait(record: AgentRecord, message: string): Promise<void> {
    this.waits.cancel(record.project, record.name);
    const resume = record.resume;
    if (!resume) return;
    await this.update(record, { resume: undefined, lastError: message });
    await this.log(record, record.turns, {
      type: "reset_wait",
      phase: "cancelled",
      resumesAt: resume.at,
      account: resume.account,
      message,
    });
  }

  /**
   * Moves an agent to another CLI in the same worktree: its first message is a handoff built
   * from the task, the conversation, the diff and the memory files. The new CLI starts its own
   * session; the old one's stays in its home.
   */
  async handoff(request: HandoffRequest): Promise<Started> {
    const root = await findRepoRoot(request.project);
    return this.queue.run(turnsKey(root, request.name), () => this.handoffNow(root, request));
  }

  private async handoffNow(root: string, request: HandoffRequest): Promise<Started> {
    const record = await readAgent(root, request.name);
    if (this.running.has(key(root, record.name))) {
      throw new OffrunError("invalid_input", `${record.name} is still working. \`offrun stop ${record.name}\` first.`);
    }
    if (record.status === "done") {
      throw new OffrunError("invalid_input", `${record.name} was discarded; there is no worktree to hand off.`);
    }
    const config = await loadProjectConfig(root);
    const harness = await findHarness(request.harness, { project: root, env: this.env });
    const binary = await this.requireBinary(harness);
    const login = await this.logins.choose(harness, { label: request.account, force: request.force });
    const prompt = await buildHandoffPrompt({
      record,
      events: (await readChat(root, record.name)).entries,
      toHarness: harness.id,
      message: request.message,
    });
    const fromHarness = record.harness;
    await this.update(record, {
      harness: harness.id,
      account: login.account.label,
      sessionId: undefined,
      model: request.model,
    });
    await this.log(record, record.turns, {
      type: "handoff",
      fromHarness,
      toHarness: harness.id,
      account: login.account.label,
    });
    const firstTurn = record.turns + 1;
    this.beginTurn(record, prompt, binary, config);
    return { agent: record, warnings: login.warning ? [login.warning] : [], firstTurn };
  }

  /** Ends the running turn (the CLI's whole process group). Safe to call when nothing runs. */
  async stop(project: string, name: string): Promise<AgentRecord> {
    const root = await findRepoRoot(project);
    const running = this.running.get(key(root, name));
    if (running) {
      running.controller.abort();
      await running.done;
    }
    const record = await readAgent(root, name);
    if (record.resume) {
      await this.queue.run(turnsKey(root, name), async () => {
        const current = await readAgent(root, name);
        await this.endWait(current, "Stopped: Offrun no longer waits for the reset. Send a message to go on.");
      });
      return readAgent(root, name);
    }
    return record;
  }

  /**
   * The user's answer to a request the agent's running turn waits on: it reaches the running CLI,
   * not a later turn. `--always` also writes the request's alwaysKey to .offrun/config.json.
   */
  async decide(project: string, name: string, decision: Decision, requestId?: string): Promise<Decided> {
    const root = await findRepoRoot(project);
    await readAgent(root, name); // "no such agent" before "nothing waiting"
    const entry = this.pending.resolve(key(root, name), name, decision, requestId);
    const alwaysKey = decision.kind === "allow" && decision.always ? entry.request.alwaysKey : undefined;
    if (alwaysKey) await rememberAlwaysAllow(root, alwaysKey);
    return {
      agent: await readAgent(root, name),
      request: entry.request,
      ...(alwaysKey ? { remembered: alwaysKey } : {}),
    };
  }

  /**
   * `offrun answer`: resolves a pending question of a running turn; when the last turn ended by
   * asking something (the agent is needs-you with nothing pending), the answer is the next turn.
   */
  async answer(project: string, name: string, text: string, requestId?: string): Promise<Decided> {
    const root = await findRepoRoot(project);
    const record = await readAgent(root, name);
    const waiting = this.running.has(key(root, name));
    if (!waiting && requestId === undefined && record.status === "needs-you") {
      const asked = (await readChat(root, name)).entries.findLast((e) => e.type === "question");
      const question = asked?.type === "question" ? asked.text : "the question the last turn ended with";
      const started = await this.send(project, name, text);
      return { agent: started.agent, request: { id: `turn-${record.turns}`, kind: "question", text: question } };
    }
    return this.decide(project, name, { kind: "answer", text }, requestId);
  }

  /** Resolves when the agent's current turn ends; at once (undefined) when no turn runs here. */
  async wait(project: string, name: string): Promise<TurnEndEvent | undefined> {
    const root = await findRepoRoot(project);
    return this.running.get(key(root, name))?.done;
  }

  runningCount(): number {
    return this.running.size;
  }

  /**
   * After a crash or kill -9 of an earlier companion: any agent still marked working has no
   * process reporting to anyone. End its orphaned CLI, and close its turn as interrupted. Review
   * scratch worktrees that companion left behind are removed.
   */
  async recover(): Promise<string[]> {
    const recovered: string[] = [];
    for (const root of await knownProjects()) {
      for (const record of await listAgents(root).catch(() => [])) {
        // A wait for a reset outlives the companion that armed it.
        if (record.resume && record.status === "limited") this.waits.schedule(root, record.name, record.resume.at);
        if ((record.status !== "working" && record.status !== "needs-you") || this.running.has(key(root, record.name)))
          continue;
        if (record.pid !== undefined && isAlive(record.pid)) signalGroup(record.pid, "SIGTERM");
        const reason = "The companion stopped during this turn. Send a message to continue the same session.";
        await this.log(record, record.turns, { type: "turn_end", outcome: "interrupted", reason });
        await this.update(record, { status: "failed", lastError: reason, pid: undefined });
        recovered.push(`${root}:${record.name}`);
      }
      // Reviews run only in a companion and requests wait for recovery: a scratch left now is the last one's.
      await removeLeftoverScratches(root).catch(() => undefined);
    }
    return recovered;
  }

  /** Stops every running turn (companion shutdown). */
  async shutdown(): Promise<void> {
    this.waits.close();
    const turns = [...this.running.values()];
    for (const turn of turns) turn.controller.abort();
    await Promise.allSettled(turns.map((t) => t.done));
  }

  private async requireBinary(harness: Harness): Promise<string> {
    const binary = await locateBinary(harness.id, harness.binaryName, this.env);
    if (!binary) {
      throw new OffrunError(
        "not_installed",
        `${harness.displayName} (\`${harness.binaryName}\`) is not installed or not on PATH. Install it with \`${harness.installHint}\`, sign in once by running \`${harness.binaryName}\`, then try again.`,
      );
    }
    return binary;
  }

  private beginTurn(
    record: AgentRecord,
    prompt: string,
    binary: string,
    config: ProjectConfig,
    resume: Pick<ChainContext, "resumed" | "onDispatched"> = {},
  ): Promise<TurnEndEvent> {
    const controller = new AbortController();
    const agent = key(record.project, record.name);
    setLiveHooks(record, {
      ask: (turn, request, signal) =>
        askUser(
          {
            pending: this.pending,
            agent,
            record,
            turn,
            config,
            signal,
            log: (t, event) => this.log(record, t, event),
            update: (changes) => this.update(record, changes),
          },
          request,
        ),
    });
    const done = runTurnChain({
      record,
      prompt,
      binary,
      config,
      signal: controller.signal,
      env: this.env,
      logins: this.logins,
      log: (turn, event) => this.log(record, turn, event),
      update: (changes) => this.update(record, changes),
      ...resume,
    })
      .catch((error: unknown) => this.failTurn(record, error))
      .finally(() => {
        this.running.delete(key(record.project, record.name));
        // The chain planned a wait for the reset: arm it here, where it can be cancelled.
        if (record.resume) this.waits.schedule(record.project, record.name, record.resume.at);
      });
    this.running.set(key(record.project, record.name), { controller, done });
    return done;
  }

  /**
   * A turn that failed inside Offrun (a log write on a full disk, a spawn error) still ends with
   * one terminal event where that can be written, and never takes the companion down.
   */
  private async failTurn(record: AgentRecord, error: unknown): Promise<TurnEndEvent> {
    const reason = `Offrun could not run this turn: ${describeError(error)}`;
    const end: TurnEndEvent = {
      type: "turn_end",
      outcome: "failed",
      reason,
      at: new Date().toISOString(),
      turn: record.turns,
    };
    await this.log(record, record.turns, end).catch(() => undefined);
    await this.update(record, { status: "failed", pid: undefined, lastError: reason }).catch(() => undefined);
    return end;
  }

  /** Appends one event to the agent's chat log, in order. */
  private log(record: AgentRecord, turn: number, event: ParsedEvent): Promise<void> {
    const stamped = { ...event, at: new Date().toISOString(), turn } as AgentEvent;
    return this.queue.run(`agent:${key(record.project, record.name)}`, () =>
      appendChat(record.project, record.name, stamped),
    );
  }

  private update(record: AgentRecord, changes: Partial<AgentRecord>): Promise<void> {
    return this.queue.run(`agent:${key(record.project, record.name)}`, async () => {
      Object.assign(record, changes, { updatedAt: new Date().toISOString() });
      for (const [field, value] of Object.entries(changes)) {
        if (value === undefined) delete (record as Record<string, unknown>)[field];
      }
      await writeAgent(record);
    });
  }
}

/** The `.worktrees/.review-*` scratches of a project: folders still there, and ones git still lists. */
async function removeLeftoverScratches(root: string): Promise<void> {
  const dir = projectPaths(root).worktrees;
  const isScratch = (p: string) => path.dirname(p) === dir && path.basename(p).startsWith(".review-");
  const folders = (await fs.readdir(dir).catch(() => [])).map((name) => path.join(dir, name));
  const listed = (await git(root, ["worktree", "list", "--porcelain", "-z"])).stdout
    .split("\0")
    .filter((line) => line.startsWith("worktree "))
    .map((line) => line.slice("worktree ".length));
  for (const scratch of new Set([...folders, ...listed].filter(isScratch))) await removeScratch(root, scratch);
}

function key(root: string, name: string): string {
  return `${root}\u0000${name}`;
}

/** The lock a turn's start takes, apart from the agent's record and log writes (which a start makes). */
function turnsKey(root: string, name: string): string {
  return `turns:${key(root, name)}`;
}

function kindOf(error: unknown) {
  return error instanceof OffrunError ? error.kind : "process_failed";
}
