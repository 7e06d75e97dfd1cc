import type { Harness, TurnInput } from "../../harnesses/types.js";
import type { Login } from "../foundation/login-model.js";
import type { ParsedEvent } from "../foundation/events.js";
import type { ProcessRunner } from "../foundation/runner.js";
import { checksDone, turnStarts } from "../logins/home-use.js";
import type { LoginPicker } from "../logins/picker.js";
import { markSignedIn, markSignedOut } from "../logins/sign-in.js";
import { loginKey, markHealthy, markLimited, recordObserved } from "../quota/ledger.js";
import type { RefusalWatch } from "../sandbox/refusals.js";
import { openSandbox, type SandboxRequest, type SandboxTurn } from "../sandbox/runner.js";

// The attempt engine: a piece of work (an agent's turn, a review) runs on a login, and on the
// next login when that one hits its limit. The login loop lives here alone; what moves to the
// next login (a session, or nothing: a restart) is the caller's policy.

/** A login whose limit message named no reset time is treated as out for this long. */
export const UNKNOWN_RESET_MS = 60 * 60_000;
const MINUTE_MS = 60_000;

/** Linux refuses a single argument over 128 KiB (MAX_ARG_STRLEN): longer prompts go through stdin. */
export const ARGV_PROMPT_BYTES = 100_000;

/** The prompt as a CLI's input takes it: through stdin when it is too long for one argument. */
export function promptInput(prompt: string): Pick<TurnInput, "prompt" | "promptViaStdin"> {
  return { prompt, promptViaStdin: Buffer.byteLength(prompt, "utf8") > ARGV_PROMPT_BYTES };
}

export type QuotaEvent = Extract<ParsedEvent, { type: "quota" | "limit_hit" }>;

/** One login's go at the work: the login is held for it from before it starts until after it ends. */
export interface LoginAttempt {
  login: Login;
  /** The environment of the login's processes (its relocation variable and its extra env). */
  env: NodeJS.ProcessEnv;
  /** The login's home, for an added login (the adapter sets the CLI's relocation variable). */
  loginHome?: string;
  /** Where the CLI runs: inside this login's sandbox when the work is sandboxed. */
  runner: ProcessRunner;
  /** What the sandbox refused, when the work is sandboxed. */
  refusals?: RefusalWatch;
  /** Puts what the stream says about quota into the ledger: a reading, or a limit until its reset. */
  observe(event: QuotaEvent): Promise<void>;
}

/**
 * What an attempt's end means for the login loop: the login works (`completed`); it hit its usage
 * limit or is not signed in (the next login); the same login once more, after the policy's pause
 * (`again`); or anything else, which ends the work here (`over`).
 */
export type AttemptVerdict =
  | { kind: "completed" }
  | { kind: "limited" }
  | { kind: "signed_out"; reason: string }
  | { kind: "again" }
  | { kind: "over" };

/** The sandbox each attempt runs in, opened for its login (the next login's home, not this one's). */
export type AttemptSandbox = Omit<SandboxRequest, "harness" | "login" | "env" | "inner" | "warn"> & {
  warn(login: Login, message: string): Promise<void>;
};

/** A piece of work and what to do on each login: agent turns and reviews are two of these. */
export interface AttemptPolicy<R> {
  harness: Harness;
  logins: LoginPicker;
  /** The login to start on (already picked: the agent's, a pinned one, or the one with most room). */
  first: Login;
  signal: AbortSignal;
  /** Where the CLI runs (see foundation/runner.ts); a sandbox wraps it. */
  runner: ProcessRunner;
  sandbox?: AttemptSandbox;
  /** Each time a login is held for an attempt, before the attempt waits for anything. */
  onHeld?(login: Login): void;
  /** Runs the work once on a held login. */
  attempt(login: LoginAttempt): Promise<R>;
  /** What the attempt's end means (the policy may say why in its log, or pause before `again`). */
  judge(result: R, login: Login): Promise<AttemptVerdict>;
  /**
   * Carries the work from `from` to `to`, the next login with room, before it runs there: an
   * agent's session moves, a review starts again. False ends the work here, on `to`.
   */
  moveTo(move: { from: Login; to: Login; result: R; why: "limited" | "signed_out" }): Promise<boolean>;
}

/** The last usage limit an attempt hit: the login's label, until when, and whether the stream named the reset. */
export interface LimitSeen {
  login: string;
  until: string;
  resetGiven: boolean;
}

export interface Attempts<R> {
  /** The last attempt's result, and the login it ran on. */
  result: R;
  login: Login;
  /** The work needed another login and none had room: the picker's error, which says why. */
  noRoom?: unknown;
  /** The policy's moveTo ended the work after moving it. */
  stopped?: true;
  /**
   * Kept when a later login then turns out signed out: the work still waits for this reset (seen
   * in CI: a limit, then an unknown Default login that was not signed in, and no wait at all).
   */
  limit?: LimitSeen;
  /**
   * What the attempts said of their logins (healthy, signed in or out), settled (never rejects):
   * kept beside the next step, so a failover does not wait for these writes.
   */
  notes: Promise<void>;
}

/**
 * The login loop, for every kind of work: runs it on `first`, observing its quota; when the login
 * hits its limit (or is not signed in) the policy carries the work to the next login with room and
 * it runs there. Each login is tried at most once, so a failover never loops; the login is held
 * while the work runs on it and released after, also when the work throws.
 */
export async function runAttempts<R>(policy: AttemptPolicy<R>): Promise<Attempts<R>> {
  const tried = new Set<string>();
  const notes: Promise<unknown>[] = [];
  const note = (pending: Promise<void>) => notes.push(pending.catch(() => undefined));
  let limit: LimitSeen | undefined;
  let login = policy.first;
  for (;;) {
    tried.add(loginKey(login));
    const result = await attemptOn(policy, login, (seen) => (limit = seen));
    const over = (more: Partial<Attempts<R>> = {}): Attempts<R> => ({
      result,
      login,
      ...(limit ? { limit } : {}),
      ...more,
      notes: Promise.all(notes).then(() => undefined),
    });
    if (policy.signal.aborted) return over();
    const verdict = await policy.judge(result, login);
    switch (verdict.kind) {
      case "again":
        continue;
      case "over":
        return over();
      case "completed":
        note(markHealthy(login));
        note(markSignedIn(login));
        return over();
      case "limited":
        note(markSignedIn(login)); // a limit is an answer: the sign-in works
        break;
      case "signed_out":
        note(markSignedOut(login, verdict.reason));
        break;
    }
    let next: Login;
    try {
      next = (await policy.logins.choose(policy.harness, { exclude: tried })).login;
    } catch (error) {
      return over({ noRoom: error });
    }
    if (!(await policy.moveTo({ from: login, to: next, result, why: verdict.kind }))) {
      return over({ stopped: true });
    }
    login = next;
  }
}

/** One attempt on one login: held, its home free of status commands, its sandbox open. */
async function attemptOn<R>(policy: AttemptPolicy<R>, login: Login, onLimit: (seen: LimitSeen) => void): Promise<R> {
  const release = policy.logins.hold(login);
  policy.onHeld?.(login);
  // No status command starts in the home from now on; one already running there finishes first.
  const turnEnds = turnStarts(login.home);
  let sandbox: SandboxTurn | undefined;
  try {
    await checksDone(login.home);
    const env = policy.logins.processEnv(login, policy.harness);
    if (policy.sandbox) {
      const { warn, ...request } = policy.sandbox;
      sandbox = await openSandbox({
        ...request,
        harness: policy.harness,
        login,
        env,
        inner: policy.runner,
        warn: (message) => warn(login, message),
      });
    }
    return await policy.attempt({
      login,
      env,
      ...(login.isDefault ? {} : { loginHome: login.home }),
      runner: sandbox?.runner ?? policy.runner,
      ...(sandbox ? { refusals: sandbox.refusals } : {}),
      observe: (event) => observe(login, event, onLimit),
    });
  } finally {
    try {
      await sandbox?.close();
    } finally {
      turnEnds();
      release();
    }
  }
}

/** What a stream says about quota goes into the ledger; a limit marks the login out until its reset. */
async function observe(login: Login, event: QuotaEvent, onLimit: (seen: LimitSeen) => void): Promise<void> {
  const now = Date.now();
  if (event.type === "quota") {
    const observedAt = event.windows[0]?.observedAt ?? new Date(now).toISOString();
    await recordObserved(login, { windows: event.windows, observedAt });
    return;
  }
  let reset = event.resetsAt === undefined ? undefined : Date.parse(event.resetsAt);
  // Texts such as Codex's "try again at 2:49 AM" name the minute: within it, the reset is its end.
  if (reset !== undefined && reset <= now && now - reset < MINUTE_MS) reset += MINUTE_MS;
  // A reset further in the past is no reset time at all (a clock or parsing problem): back off instead.
  const resetGiven = reset !== undefined && reset > now;
  const until = new Date(resetGiven ? reset! : now + UNKNOWN_RESET_MS).toISOString();
  onLimit({ login: login.label, until, resetGiven });
  await markLimited(login, until, event.message);
}
