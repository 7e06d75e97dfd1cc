import type { Login } from "./login-model.js";
import type { QuotaWindow } from "./events.js";
import type { ProcessRunner } from "./runner.js";

/** What one quota source says about one login. */
export interface QuotaReading {
  windows: QuotaWindow[];
  /** The login is out until then (a limit hit whose reset has not passed). */
  limitedUntil?: string;
}

/** Everything a source may use; sources never open credentials. */
export interface QuotaSourceContext {
  login: Login;
  /** The CLI binary, when installed (for live sources such as `codex app-server`). */
  binary?: string;
  /** The environment for that login's processes (relocation variable and the login's extra env set). */
  env: NodeJS.ProcessEnv;
  /** How a source starts the CLI (`codex app-server`): the same runner as that login's turns. */
  runner: ProcessRunner;
  now: Date;
  /** The folder where the source may keep its incremental state (offsets and aggregates). */
  cacheDir: string;
  /** Session files a watcher saw change since the last reading; sources then read only those. */
  changedFiles?: readonly string[];
  /** The latest reading Offrun's own runs of this login reported in their streams, if any. */
  observed?: QuotaReading & { observedAt: string };
}

/** One way to learn a login's quota. Adapters list theirs in order of trust. */
export interface QuotaSource {
  id: string;
  /** One line saying where the reading comes from, for the source's readers (the README lists them). */
  description: string;
  /** undefined when the source has nothing to say (no data yet); throws when it failed. */
  read(context: QuotaSourceContext): Promise<QuotaReading | undefined>;
}

/** A record of one source tried, CodexBar-style: the pipeline returns every attempt with its reason. */
export interface QuotaAttempt {
  source: string;
  outcome: "answered" | "no-data" | "failed" | "skipped";
  reason?: string;
}
