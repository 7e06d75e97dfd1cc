import { DEFAULT_HARNESS_ID, findHarness } from "../../harnesses/registry.js";
import type { Decision, Harness } from "../../harnesses/types.js";
import { OffrunError } from "../foundation/errors.js";
import type { TurnEndEvent } from "../foundation/events.js";
import type { AgentRecord } from "../foundation/model.js";
import { validateAgentName } from "../foundation/names.js";
import { ensureProjectDirs, loadProjectConfig, loadProjectSettings, rememberProject } from "../foundation/project.js";
import { findRepoRoot } from "../git/repo.js";
import { lookBeforeStart } from "../git/worktrees.js";
import { LoginPicker } from "../logins/picker.js";
import { rememberAlwaysAllow, untrustedWarning } from "../foundation/trust.js";
import { requireAgentBinary } from "./binary.js";
import { handOver } from "./handoff.js";
import { AgentJournal, agentKey } from "./journal.js";
import { checkPrompt } from "./prompt-check.js";
import { readAgent, readChat } from "../records/records.js";
import { recoverAgents } from "./recovery.js";
import type { Decided, HandoffRequest, Started, StartRequest } from "../protocol/requests.js";
import { resumeAfterReset } from "./resume.js";
import { RunningTurns } from "./running-turns.js";
import { StartTrace } from "./start-trace.js";
import { localRunner, type ProcessRunner } from "../foundation/runner.js";
import { canWriteMemory } from "./turn.js";
import { reserveAgent, setUpWorktree } from "./setup.js";
import { byCodeUnits } from "../foundation/text-order.js";

/**
 * Owns agent turns: creates worktrees, spawns the CLI for each turn, appends every event to the
 * chat log as it arrives and keeps the agent record current. One per companion process.
 */
export class Supervisor {
  /** Serializes record and log writes per agent, naming per project, and turn starts per agent. */
  private readonly journal = new AgentJournal();
  private readonly queue = this.journal.queue;
  private readonly logins: LoginPicker;
  private readonly turns: RunningTurns;

  constructor(
    private readonly env: NodeJS.ProcessEnv = process.env,
    /** Where agents' CLIs run: on this machine as they are, unless told otherwise. */
    runner: ProcessRunner = localRunner,
  ) {
    this.logins = new LoginPicker(env);
    this.turns = new RunningTurns({
      env,
      runner,
      logins: this.logins,
      journal: this.journal,
      onResetDue: (root, name) => this.resumeNow(root, name),
    });
  }

  async start(request: StartRequest): Promise<Started> {
    const trace = new StartTrace(this.env);
    checkPrompt(request.prompt);
    if (request.name !== undefined) validateAgentName(request.name);
    const root = await findRepoRoot(request.project);
    const { config, trust } = await loadProjectSettings(root);
    const harness = await findHarness(request.harness ?? config.defaultHarness ?? DEFAULT_HARNESS_ID, {
      project: root,
      env: this.env,
    });
    trace.mark("repository, config and harness");
    // Independent file reads, a PATH search and git's answers (the commit to start from, the
    // branches taken): done together, since each start pays for them.
    // Known before its record exists: recovery finds agents via projects.json (a kill mid-start left one working).
    const binaryFound = this.requireBinary(harness);
    const [binary, pick, ground] = await Promise.all([
      binaryFound,
      // Not installed is the cause before any sign-in (a CLI that is not there reads as signed out):
      // the pick's refusal waits for the binary's answer, which wins when it is a refusal too.
      this.logins.choose(harness, { label: request.account, force: request.force }).catch(async (error: unknown) => {
        await binaryFound;
        throw error;
      }),
      lookBeforeStart(root, request.base, config.branchPrefix),
      ensureProjectDirs(root),
      rememberProject(root),
    ]);
    trace.mark("binary, login pick, git, folders");

    // Reserve name and port under one lock so that concurrent starts never collide.
    const record = await this.queue.run(`project:${root}`, () =>
      reserveAgent({
        root,
        request,
        harness: harness.id,
        login: pick.login.label,
        config,
        branches: ground.takenNames,
      }),
    );

    trace.mark("name and port reserved");
    const firstMemory = await setUpWorktree({
      root,
      record,
      base: ground.start,
      config,
      journal: this.journal,
      canWriteMemory: canWriteMemory(record, harness),
    });
    trace.mark("git worktree, setup, memory");
    const firstTurn = record.turns + 1;
    this.turns.begin(record, request.prompt, binary, config, firstMemory ? { firstMemory } : {});
    trace.finish(record.name);
    const warnings = [pick.warning, untrustedWarning(trust)].filter((warning) => warning !== undefined);
    for (const message of warnings) await this.journal.log(record, 1, { type: "notice", level: "warning", message });
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
      await this.turns.closed(root, name);
      if (this.turns.has(root, name)) {
        throw new OffrunError(
          "invalid_input",
          `${name} is in the middle of a turn. Wait for it to end, or \`offrun stop ${name}\`, then try again.`,
        );
      }
      return task();
    });
  }

  /** whileIdle for several agents at once (in one order, so two callers cannot deadlock). */
  async whileAllIdle<T>(agents: { project: string; name: string }[], task: () => Promise<T>): Promise<T> {
    const [first, ...rest] = [...agents].sort((a, b) => byCodeUnits(key(a.project, a.name), key(b.project, b.name)));
    return first ? this.whileIdle(first.project, first.name, () => this.whileAllIdle(rest, task)) : task();
  }

  private async sendNow(root: string, name: string, prompt: string): Promise<Started> {
    const record = await readAgent(root, name);
    await this.turns.closed(root, name);
    if (this.turns.has(root, name)) {
      const waiting = this.turns.pending.list(key(root, name)).length > 0;
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
    if (record.resume) await this.turns.endWait(record, "Your new message replaces the wait for the reset.");
    const firstTurn = record.turns + 1;
    this.turns.begin(record, prompt, binary, config, { carryOver: true });
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
      if (!record?.resume || this.turns.has(root, name)) return;
      dispatched = await resumeAfterReset({
        record,
        env: this.env,
        logins: this.logins,
        requireBinary: (harness) => this.requireBinary(harness),
        log: (turn, event) => this.journal.log(record, turn, event),
        update: (changes) => this.journal.update(record, changes),
        waitAgain: (at) => this.turns.waits.schedule(root, name, at),
        begin: (prompt, binary, config, resumed) => {
          let ready!: () => void;
          const held = new Promise<void>((resolve) => (ready = resolve));
          const done = this.turns.begin(record, prompt, binary, config, { resumed, onDispatched: ready });
          return Promise.race([held, done.then(() => undefined)]);
        },
      });
    });
    await dispatched?.held;
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
    await this.turns.closed(root, record.name);
    if (this.turns.has(root, record.name)) {
      throw new OffrunError("invalid_input", `${record.name} is still working. \`offrun stop ${record.name}\` first.`);
    }
    if (record.status === "done") {
      throw new OffrunError("invalid_input", `${record.name} was discarded; there is no worktree to hand off.`);
    }
    const { prompt, binary, config, warnings } = await handOver({
      root,
      record,
      request,
      env: this.env,
      logins: this.logins,
      journal: this.journal,
    });
    const firstTurn = record.turns + 1;
    this.turns.begin(record, prompt, binary, config);
    return { agent: record, warnings, firstTurn };
  }

  /** Ends the running turn (the CLI's whole process group). Safe to call when nothing runs. */
  async stop(project: string, name: string): Promise<AgentRecord> {
    const root = await findRepoRoot(project);
    await this.turns.stop(root, name);
    const record = await readAgent(root, name);
    if (record.resume) {
      await this.queue.run(turnsKey(root, name), async () => {
        const current = await readAgent(root, name);
        await this.turns.endWait(current, "Stopped: Offrun no longer waits for the reset. Send a message to go on.");
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
    const entry = this.turns.pending.resolve(key(root, name), name, decision, requestId);
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
    const waiting = this.turns.has(root, name);
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
    return this.turns.wait(root, name);
  }

  runningCount(): number {
    return this.turns.size;
  }

  /** After a crash or kill -9 of an earlier companion: see recovery.ts. */
  recover(): Promise<string[]> {
    return recoverAgents({
      isRunning: (root, name) => this.turns.has(root, name),
      scheduleWait: (root, name, at) => this.turns.waits.schedule(root, name, at),
      log: (record, turn, event) => this.journal.log(record, turn, event),
      update: (record, changes) => this.journal.update(record, changes),
    });
  }

  /** Stops every running turn (companion shutdown). */
  shutdown(reason: Parameters<RunningTurns["shutdown"]>[0]): Promise<void> {
    return this.turns.shutdown(reason);
  }

  private requireBinary(harness: Harness): Promise<string> {
    return requireAgentBinary(harness, this.env);
  }
}

const key = agentKey;

/** The lock a turn's start takes, apart from the agent's record and log writes (which a start makes). */
function turnsKey(root: string, name: string): string {
  return `turns:${key(root, name)}`;
}
