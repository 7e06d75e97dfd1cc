import { availableParallelism } from "node:os";
import path from "node:path";
import { checkRuns, hasTurn, inHome } from "./home-use.js";
import * as z from "zod";
import type { Harness } from "../../harnesses/types.js";
import type { Login, LoginIdentity } from "../foundation/login-model.js";
import { loginProcessEnv, isDirectory } from "./env.js";
import { describeError } from "../foundation/errors.js";
import { userPaths } from "../foundation/paths.js";
import { Slots } from "../foundation/queue.js";
import { localRunner, type ProcessRunner } from "../foundation/runner.js";
import { readJsonFile, withFileLock, writeJsonAtomic } from "../foundation/store.js";
import { SIGN_IN_STATES } from "../quota/row.js";

/**
 * Whether a login can run at all, as a choice needs it: signed in, signed out, or unknown.
 * "signed-out" needs a definite answer (the CLI's status command said so, a turn ended not logged
 * in, the home does not exist); a login that authenticates through its environment or config is
 * "unknown" when the status command knows no sign-in. Kept in `~/.offrun/cache/sign-in.json`,
 * refreshed by the companion; never read from a credentials file.
 */
export { SIGN_IN_STATES };
export type SignInState = (typeof SIGN_IN_STATES)[number];

const entrySchema = z.object({
  state: z.enum(SIGN_IN_STATES),
  /** status: the CLI's status command or non-secret files; turn: how a turn on it ended; home: its folder is missing. */
  source: z.enum(["status", "turn", "home"]),
  checkedAt: z.string(),
  /** What the CLI said, or why the state is unknown. */
  note: z.string().optional(),
  email: z.string().optional(),
  detail: z.string().optional(),
});
export type SignInEntry = z.infer<typeof entrySchema>;

/** A cache: private, and not flushed to disk on every write (see WriteOptions). */
const CACHE_WRITE = { mode: 0o600, fsync: false };

const fileSchema = z.object({ version: z.literal(1), logins: z.record(z.string(), entrySchema) });

/** A status command that hangs is cut off well before this by the adapter; this bounds the whole check. */
const CHECK_BUDGET_MS = 15_000;

/**
 * Status commands running at once in this process. `offrun logins` and the companion's first
 * round ask every login together, and each answer is a CLI start (Claude Code's alone loads a
 * 10 MB bundle): seen in CI on 2 cores, eight at once beside a test suite all ran past the budget,
 * so every login read "unknown" and a failover chose the Default login nobody had signed in to.
 * The budget counts from when a check gets its slot, not from when it queued.
 */
const checks = new Slots(Math.max(2, Math.min(4, availableParallelism())));

function signInFile(): string {
  return path.join(userPaths().cache, "sign-in.json");
}

export function signInKey(login: { harness: string; label: string }): string {
  return `${login.harness}/${login.label}`;
}

async function readAll(): Promise<Record<string, SignInEntry>> {
  // A cache: a damaged file is rebuilt by the next check, never a reason to fail.
  const file = await readJsonFile(signInFile(), fileSchema).catch(() => undefined);
  return file?.logins ?? {};
}

/**
 * Read-change-write of one login's entry under the file's lock: `change` sees the entry as it is
 * now (not as it was before a slow status command) and returns the new one, undefined to remove
 * it, or `before` itself to leave the file alone. Returns the entry that stands.
 */
async function store(
  login: { harness: string; label: string },
  change: (before: SignInEntry | undefined) => SignInEntry | undefined,
): Promise<SignInEntry | undefined> {
  const file = signInFile();
  return withFileLock(file, async () => {
    const logins = await readAll();
    const before = logins[signInKey(login)];
    const entry = change(before);
    if (entry === before) return before;
    if (entry) logins[signInKey(login)] = entry;
    else delete logins[signInKey(login)];
    await writeJsonAtomic(file, { version: 1, logins }, CACHE_WRITE);
    return entry;
  });
}

/** The state an identity answer means. `signedIn: undefined` (could not say) is unknown, never signed out. */
export function stateOf(identity: LoginIdentity): SignInState {
  if (identity.signedIn === true) return "signed-in";
  if (identity.signedIn === false) return "signed-out";
  return "unknown";
}

/**
 * What Offrun knows of a login's sign-in without asking its CLI: a missing home is signed out at
 * once; otherwise the last check or turn; unknown when neither has said anything.
 */
export async function cachedSignIn(login: Login, known?: Record<string, SignInEntry>): Promise<SignInEntry> {
  const homeExists = await isDirectory(login.home);
  if (!login.isDefault && !homeExists) return missingHome(login);
  const entry = (known ?? (await readAll()))[signInKey(login)];
  if (entry) return entry;
  // The CLI's own home, never made: its status command decides (an API key in the environment
  // may sign it in), and until it has, it is unknown and never used, which picks rank last.
  if (!homeExists) return { state: "unknown", source: "home", checkedAt: new Date(0).toISOString(), note: NEVER_USED };
  return { state: "unknown", source: "status", checkedAt: new Date(0).toISOString(), note: "not checked yet" };
}

/** The note of a Default login whose home does not exist yet. */
export const NEVER_USED = "its home does not exist yet: never used";

/** Whether a cached state says the login's home was never made (a Default login never used). */
export function isNeverUsed(entry: SignInEntry | undefined): boolean {
  return entry?.state === "unknown" && entry.source === "home";
}

/** Every login's cached state at once (one file read for many logins). */
export async function cachedSignIns(logins: readonly Login[]): Promise<Map<string, SignInEntry>> {
  const known = await readAll();
  const entries = await Promise.all(logins.map((login) => cachedSignIn(login, known)));
  return new Map(logins.map((login, index) => [signInKey(login), entries[index]!]));
}

function missingHome(login: Login): SignInEntry {
  return {
    state: "signed-out",
    source: "home",
    checkedAt: new Date().toISOString(),
    note: `its home ${login.home} does not exist`,
  };
}

/**
 * Asks the CLI (status command or non-secret files, time-boxed) and keeps the answer. A definite
 * answer (from a turn or an earlier check) stands until the CLI gives another: a status command
 * that merely cannot tell (unknown, or too slow) neither makes a login that just failed to
 * authenticate usable again, nor demotes one that just ran. The status command runs through
 * `runner`, the way the login's turns run.
 */
export async function checkSignIn(
  login: Login,
  harness: Harness,
  binary: string | undefined,
  env: NodeJS.ProcessEnv,
  runner: ProcessRunner = localRunner,
): Promise<SignInEntry> {
  // An added login's home is made when it is added: gone means signed out. The CLI's own home
  // (the Default login) may simply not exist yet; its status command decides.
  if (!login.isDefault && !(await isDirectory(login.home))) {
    const entry = missingHome(login);
    await store(login, () => entry).catch(() => undefined);
    return entry;
  }
  const startedAt = new Date().toISOString();
  // Counted as work in the home from the moment it queues, so a purge waits for it; and asked only
  // if the home is still there when its slot comes (seen in CI: a check queued behind others ran
  // `claude auth status` after `logins rm --purge` had deleted the home, which made it again).
  const identity = await inHome(
    login.home,
    checks.run(async () => {
      if (!login.isDefault && !(await isDirectory(login.home))) return undefined;
      // A turn in the home answers for the login, and its CLI must have the home to itself.
      if (hasTurn(login.home)) return BUSY;
      return checkRuns(
        login.home,
        withBudget(harness.identity(binary, { ...env, ...loginProcessEnv(login, harness) }, login.home, runner)),
      );
    }),
  );
  if (identity === BUSY) return cachedSignIn(login);
  if (identity === undefined) {
    const entry = missingHome(login);
    await store(login, () => entry).catch(() => undefined);
    return entry;
  }
  const entry: SignInEntry = (await isNeverUsedHome(login, identity))
    ? { state: "unknown", source: "home", checkedAt: new Date().toISOString(), note: NEVER_USED }
    : {
        state: stateOf(identity),
        source: "status",
        checkedAt: new Date().toISOString(),
        ...(identity.note ? { note: identity.note } : {}),
        ...(identity.email ? { email: identity.email } : {}),
        ...(identity.detail ? { detail: identity.detail } : {}),
      };
  // Decided under the lock, against the entry as it is now: a turn that ended while the status
  // command ran writes its finding in the meantime (seen in CI: read before the lock, a Codex
  // login's "unknown" overwrote the "signed in" its warm-up turn had just written, and start then
  // picked the login with less room).
  const decide = (before: SignInEntry | undefined): SignInEntry | undefined => {
    // A status command that cannot tell never overrides a definite answer: what a turn proved (it
    // got an answer, or failed to authenticate), or what an earlier status command said. Seen under
    // load: Codex with its key from config.toml answers "unknown" just after a turn has succeeded;
    // and `claude auth status`, past its 15 s budget while the companion's first round ran beside a
    // test suite, made a signed-in Claude login unknown, so a failover passed it over.
    if (entry.state === "unknown" && before && before.state !== "unknown" && before.source !== "home") return before;
    // Nor does an answer to a question asked before the turn's: a check that started before a
    // turn was refused (401) says what the credentials looked like then (seen in CI: the
    // companion's first round, slow under load, put a login a turn had just found signed out back in).
    if (before?.source === "turn" && before.checkedAt >= startedAt) return before;
    return entry;
  };
  return (await store(login, decide).catch(() => undefined)) ?? entry;
}

/**
 * A Default login whose CLI could not tell (too slow, say) and whose home still does not exist
 * stays "never used", which picks rank last, rather than becoming an unknown that ties with
 * logins the user added and signed in to.
 */
async function isNeverUsedHome(login: Login, identity: LoginIdentity): Promise<boolean> {
  return login.isDefault === true && identity.signedIn === undefined && !(await isDirectory(login.home));
}

/** A check that did not ask: a turn was running in the login's home. */
const BUSY = Symbol("a turn is running in the home");

async function withBudget(pending: Promise<LoginIdentity>): Promise<LoginIdentity> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<LoginIdentity>((resolve) => {
    timer = setTimeout(
      () =>
        resolve({ signedIn: undefined, note: `the sign-in check did not answer within ${CHECK_BUDGET_MS / 1000} s` }),
      CHECK_BUDGET_MS,
    );
  });
  try {
    return await Promise.race([
      pending.catch((error: unknown) => ({ signedIn: undefined, note: describeError(error) }) as LoginIdentity),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** A turn on the login ended "not logged in" (or its sign-in expired): it is signed out until it signs in again. */
export async function markSignedOut(login: { harness: string; label: string }, reason: string): Promise<void> {
  await store(login, () => ({
    state: "signed-out",
    source: "turn",
    checkedAt: new Date().toISOString(),
    note: reason,
  }));
}

/** A turn on the login got an answer from the model: whatever the cache said, it can run. */
export async function markSignedIn(login: { harness: string; label: string }): Promise<void> {
  // Most turns find it signed in already: no lock, no write.
  if ((await readAll())[signInKey(login)]?.state === "signed-in") return;
  await store(login, (before) =>
    before?.state === "signed-in"
      ? before
      : {
          state: "signed-in",
          source: "turn",
          checkedAt: new Date().toISOString(),
          ...(before?.email ? { email: before.email } : {}),
          ...(before?.detail ? { detail: before.detail } : {}),
        },
  );
}

/** A login was renamed or removed: its entry follows it, or goes. */
export async function moveSignIn(harness: string, from: string, to: string | undefined): Promise<void> {
  const file = signInFile();
  await withFileLock(file, async () => {
    const logins = await readAll();
    const entry = logins[signInKey({ harness, label: from })];
    if (!entry) return;
    delete logins[signInKey({ harness, label: from })];
    if (to !== undefined) logins[signInKey({ harness, label: to })] = entry;
    await writeJsonAtomic(file, { version: 1, logins }, CACHE_WRITE);
  });
}
