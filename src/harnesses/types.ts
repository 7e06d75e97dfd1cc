import type { ParsedEvent } from "../core/foundation/events.js";
import type { Mode } from "../core/foundation/model.js";
import type { LoginIdentity } from "../core/foundation/login-model.js";
import type { Readable, Writable } from "node:stream";
import type { Command } from "../core/foundation/process.js";
import type { QuotaSource } from "../core/foundation/quota-types.js";
import type { ProcessRunner } from "../core/foundation/runner.js";
import type { HarnessSandbox } from "./sandbox-types.js";

export type {
  ConfiguredHost,
  GuardedJsonKeys,
  HarnessSandbox,
  HomePaths,
  TurnPlace,
  LoginConfiguration,
} from "./sandbox-types.js";

/** Where a copied session landed, for CLIs whose session is one text file (so the caller can tell what it holds). */
export interface CopiedSession {
  file: string;
}

/** What a turn needs from the supervisor; the adapter turns it into argv and env. */
export interface TurnInput {
  prompt: string;
  mode: Mode;
  /** The agent's worktree: the CLI runs here. */
  cwd: string;
  /** The binary to run (from `locate`). */
  binary: string;
  /** The CLI's own session id to resume; absent on the first turn. */
  resumeSessionId?: string;
  /** A session id chosen up front, for CLIs that accept one (Claude `--session-id`). */
  newSessionId?: string;
  model?: string;
  /** The login's home; absent for the Default login (the CLI's own home). */
  loginHome?: string;
  /**
   * The prompt is too long for one argument (Linux caps one at 128 KiB): the adapter must have
   * the CLI read it from stdin, by setting `input` on the command.
   */
  promptViaStdin?: boolean;
  /** Extra folders the agent may write (memory). */
  addDirs?: string[];
  /**
   * The user trusted the repository in Offrun (`offrun trust`): a CLI with a folder trust of its
   * own (Gemini CLI) is told to skip it only then, and keeps its own check otherwise.
   */
  workspaceTrusted?: boolean;
  /**
   * The CLI runs inside Offrun's sandbox, which already enforces the mode (a Planner's worktree
   * is read-only there): an adapter whose CLI has a sandbox of its own that cannot nest inside
   * it (Codex's bubblewrap) turns that one off.
   */
  sandboxed?: boolean;
  /**
   * The final answer must be JSON of this schema (a review). CLIs with their own structured output
   * get it natively (`file` holds the same schema for CLIs that read it from a file); the final
   * text event then carries the JSON. Other CLIs are told in the prompt, by the caller.
   */
  outputSchema?: { schema: Record<string, unknown>; file: string };
  /** The environment to start from (already carries OFFRUN_PORT and the login's extra env). */
  env: NodeJS.ProcessEnv;
}

/** A stateful parser for one turn's stdout: one native line in, zero or more of our events out. */
export interface StreamParser {
  push(line: string): ParsedEvent[];
  /**
   * Called once after the process ended. Returns the final events, always ending with exactly one
   * `turn_end` (unless the stream already produced one: then only `denial`s learned at exit, such as
   * Codex's refused writes, which a review keeps and an agent's turn drops).
   */
  finish(exit: { exitCode: number | undefined; signal?: string; stderrTail: string }): ParsedEvent[];
}

/** What the user decided about a pending request. */
export type Decision =
  | { kind: "allow"; /** Remember it for this project (the request's alwaysKey). */ always?: boolean }
  | { kind: "deny"; reason?: string }
  | { kind: "answer"; text: string };

/** An approval or a question a live turn waits on; the supervisor logs it and shows the agent as needs-you. */
export interface PendingRequest {
  /** Unique within the agent; `offrun approve` names it when several are pending. */
  id: string;
  kind: "approval" | "question";
  tool?: string;
  input?: unknown;
  /** The question, or a one-line description of what needs approval. */
  text: string;
  /** What `--always` remembers in .offrun/config.json, e.g. "Bash(npm install:*)". */
  alwaysKey?: string;
}

/** A harness process with pipes both ways, for CLIs that speak a protocol on stdin. */
export interface LiveProcess {
  stdin: Writable;
  /** One complete line per chunk, without its "\n" (split on "\n" only; an over-long line is cut). */
  stdout: Readable;
  /** Resolves when the process has ended (never rejects). */
  exited: Promise<{ exitCode: number | undefined; signal?: string; stderrTail: string }>;
  /** Ends the process group. */
  kill(): void;
}

/** What the supervisor gives a live turn. */
export interface LiveTurnIO {
  signal: AbortSignal;
  /** Events as they happen; logged at once. The turn must emit exactly one turn_end. */
  emit(events: ParsedEvent[]): void;
  /**
   * Waits for the user's decision (logged first as approval_request or question). Never turns
   * into an approval by itself, however long it waits; rejects only when the turn is stopped.
   */
  decide(request: PendingRequest): Promise<Decision>;
  /** Spawns with stdin and stdout piped, argv array, own process group, idle watchdog. */
  spawn(command: Command): LiveProcess;
  /** A short command through the turn's runner, where the turn's CLI runs (a version check first). */
  run: ProcessRunner["run"];
  /** alwaysKeys the user allowed for this project with --always. */
  alwaysAllowed: readonly string[];
}

/** One agent CLI behind one interface. Nothing outside src/harnesses switches on a harness id. */
export interface Harness {
  readonly id: string;
  readonly displayName: string;
  /** The binary name looked up on PATH and known install folders. */
  readonly binaryName: string;
  /** How a user installs it (shown when it is missing). */
  readonly installHint: string;
  /** The variable that moves the CLI's home (config, sessions, login). */
  readonly homeVariable: string;
  /** The Default login's home. */
  defaultHome(env: NodeJS.ProcessEnv): string;
  /** Whether the CLI lets us pick the session id before the first turn. */
  readonly choosesSessionId: boolean;
  /** argv and env for one headless turn. */
  turnCommand(input: TurnInput): Command;
  /** A parser for one turn; `input` is that turn's (a parser may read the CLI's files after it, as Codex's does). */
  createParser(input?: TurnInput): StreamParser;
  /** The command that prints the CLI's version. */
  versionArgs: string[];

  /** argv (after the binary) of the CLI's own interactive sign-in, run with the login's home variable set. */
  readonly loginArgs: string[];
  /**
   * Who is signed in to the home in `env` (its relocation variable set for an added login), from
   * the CLI's status command or non-secret files. Must never open a credentials file. A status
   * command runs through `runner`, as a turn of that login would (a sandbox wraps it the same way).
   */
  identity(
    binary: string | undefined,
    env: NodeJS.ProcessEnv,
    home: string,
    runner: ProcessRunner,
  ): Promise<LoginIdentity>;
  /** Where to learn a login's quota, most trusted first. */
  readonly quotaSources: readonly QuotaSource[];
  /**
   * What those sources can say: "percent" when one of them gives a used % per window, "limits"
   * when only limit hits (with their reset time) are known, so views say "no usage data: limits only".
   */
  readonly quotaCoverage: "percent" | "limits";
  /**
   * The model's context window in tokens, as the CLI itself reckons it; undefined for a model the
   * adapter cannot vouch for (an alias, a model newer than the table), or when the CLI picks it.
   */
  contextWindow?(model?: string): number | undefined;
  /** The folders under a home that hold session files (watched by the companion to keep quota current). */
  sessionRoots(home: string): string[];
  /** Reads the session transcripts under sessionRoots, to notify about sessions started outside Offrun. */
  readonly transcripts?: TranscriptReader;
  /**
   * Makes a session of one login resumable from another: copies the CLI's own session file(s)
   * for `sessionId` (started in `cwd`) from `fromHome` into the same place under `toHome`.
   * Throws not_found when the session file is not there.
   */
  copySession(request: {
    fromHome: string;
    toHome: string;
    sessionId: string;
    cwd: string;
    /** How to start the CLI when the copy is the CLI's own job (OpenCode's export and import); localRunner when absent. */
    runner?: ProcessRunner;
  }): Promise<CopiedSession | void>;
  /**
   * For CLIs that can ask the user mid-turn (approvals, questions): runs one turn over the CLI's
   * control protocol instead of a one-way stream. Used for Build turns when present.
   */
  readonly live?: { runTurn(input: TurnInput, io: LiveTurnIO): Promise<void> };
  /**
   * Planner turns cannot write anywhere, not even `addDirs` (the agent's memory): the CLI's
   * read-only mode has no path scope. The memory briefing then promises no writes.
   */
  readonly plannerWritesNothing?: boolean;
  /**
   * The CLI's session file is complete when its stream reports the turn's end: what it writes on
   * the way out is bookkeeping only (Claude Code 2.1.332 appends one `cost-state` line). A limited
   * turn's failover then copies the session without waiting for the old process to exit; the
   * e2e test session-at-end.test.ts checks the claim on the pinned CLI.
   */
  readonly sessionCompleteAtEnd?: boolean;
  /** Planner turns run live too: the harness has no one-way mode (ACP agents) or a worse one (Grok Build). */
  readonly liveOnly?: boolean;
  /** false when `live` only watches the CLI and never asks the user (agy), so no view promises approvals. */
  readonly liveAsks?: boolean;
  /** The oldest CLI version the adapter drives, and how that was established (`offrun harnesses`). */
  readonly minimumVersion?: { readonly version: string; readonly verified: string };
  /** How approvals work with this harness, for `offrun harnesses` (e.g. "interactive", or why not). */
  readonly approvals: string;
  /** What a sandboxed turn of this CLI may write, read and reach; see `HarnessSandbox`. */
  readonly sandbox: HarnessSandbox;
  /** Offrun's hook in the CLI's own settings (`offrun hooks install`), for CLIs that have hooks. */
  readonly hooks?: HarnessHooks;
}

/**
 * How a CLI takes Offrun's hook and what its payloads mean. `command` is the argv that runs
 * `offrun hook <id>` (OFFRUN_HOME included when it is not the default): the CLI runs it with its
 * own environment, not ours. Undoing is not the adapter's job: uninstall restores the backup.
 */
export interface HarnessHooks {
  /** The file in a login's home that holds the hook. */
  settingsFile(home: string): string;
  /** The file's text with the hook added (the same text when it is there); throws invalid_file or conflict, changing nothing. */
  add(text: string | undefined, command: readonly string[], file: string): string;
  /** Whether the text runs the hook on every event Offrun listens to. */
  isPresent(text: string | undefined, command: readonly string[]): boolean;
  /**
   * One payload the hook received, as the same kind of moment a transcript yields (so the two
   * dedupe); undefined for events that tell the user nothing, or a payload of another shape.
   */
  signal(payload: unknown, receivedAt: string): Promise<TranscriptMoment | undefined>;
}

/** One moment of a session's transcript that the user should hear about. */
export interface TranscriptMoment {
  kind: "finished" | "needs-approval" | "question" | "limit";
  /** The CLI's own session id. */
  sessionId: string;
  /** What identifies this moment exactly (a tool call id, a turn id), so a hook's sighting dedupes with it. */
  eventId?: string;
  /** Where the session runs, when the transcript says. */
  cwd?: string;
  /** The agent's last words, the command waiting for approval, or the question. */
  text: string;
  at: string;
}

/**
 * A stateful reader of one transcript: complete lines in, in file order. Some moments only exist
 * by time passing (a tool call still without its result), so the watcher also asks `due`.
 */
export interface TranscriptClassifier {
  push(line: string): TranscriptMoment[];
  /** Moments whose grace period has passed by `now` (epoch ms); each is returned once. */
  due(now: number): TranscriptMoment[];
  /** When `due` may next return something (epoch ms), or undefined when nothing waits. */
  nextDueAt(): number | undefined;
  /**
   * The tool calls still waiting, for the next companion: one restarted during a wait re-arms
   * them instead of forgetting them (one already told is not included, so it is not told twice).
   */
  waiting?(): WaitingCall[];
  restoreWaiting?(calls: readonly WaitingCall[]): void;
}

/** A classifier that always hands its waiting tool calls on (the built-in readers). */
export type ResumableClassifier = TranscriptClassifier &
  Required<Pick<TranscriptClassifier, "waiting" | "restoreWaiting">>;

/** A tool call still without its result, as kept across a companion restart. */
export interface WaitingCall {
  id: string;
  /** What is told when the grace period passes ("needs approval" with the command). */
  moment: TranscriptMoment;
  /** When it is told (epoch ms). */
  dueAt: number;
}

/** How a harness's session transcripts are found and read. */
export interface TranscriptReader {
  /** Whether `file` (under `root`, one of sessionRoots) is a top-level session; sub-agent files are not. */
  isSession(file: string, root: string): boolean;
  createClassifier(file: string): TranscriptClassifier;
}
