/**
 * What a sandboxed turn of one CLI needs beyond its worktree, and what of its login's home must
 * stay as the user left it. The sandbox writes nothing but the state a turn needs; whatever in
 * the home would run outside the sandbox later (settings with hooks, MCP servers, commands,
 * plugins, extensions, instruction files) is read-only to the turn, since the user's next plain
 * run of the CLI would execute what an agent planted there.
 */
export interface HarnessSandbox {
  /** The hosts the CLI talks to when its login names no gateway (`host`, `host:port`, `*.domain`). */
  readonly hosts: readonly string[];
  /**
   * The folders and files a turn of the login whose home is `home` writes: sessions, caches,
   * credentials refresh, state. Absent: the home itself. Never the user's whole home: a CLI whose
   * Default home is $HOME names its own state folder (Gemini's `~/.gemini`). A missing folder is
   * made before the turn (the sandbox can only open what exists).
   */
  state?(home: string, env: NodeJS.ProcessEnv): HomePaths;
  /**
   * The CLI's executable configuration inside that state: read-only in a turn. A folder that
   * does not exist yet is made, empty, before the turn, so that it can be held read-only (the CLI
   * finds the empty folder it expects); a file that does not exist is removed after the turn if
   * the turn made it (a placeholder in its place breaks CLIs that open it: Gemini CLI 0.61.0
   * fails on an unreadable trustedFolders.json).
   */
  executable?(home: string, env: NodeJS.ProcessEnv, turn?: TurnPlace): ExecutablePaths;
  /**
   * Work the companion does outside the sandbox before a turn, ahead of `executable` (Gemini CLI:
   * registers the turn's worktree in its project registry, which the turn may then not write).
   * What it returns runs when the turn is over; its sentences go to the turn's log.
   */
  prepare?(home: string, env: NodeJS.ProcessEnv, turn: TurnPlace): Promise<() => Promise<string[]>>;
  /**
   * JSON files that mix state the CLI writes with executable keys (Claude Code's `.claude.json`
   * and its `mcpServers`): the keys come out of a turn as they went in.
   */
  guardedKeys?(home: string, env: NodeJS.ProcessEnv): GuardedJsonKeys[];
  /**
   * What the login's own configuration names (read by the companion, outside the sandbox, before
   * the turn, from the login's home and the CLI's managed settings): hosts, each with the setting
   * it came from, and environment variables the config tells the CLI to read. Hosts that the
   * worktree's own settings name are returned marked `repository`: they open nothing (the
   * repository, or a previous turn, wrote them), but a refusal of one can say where it came from.
   */
  configured?(home: string, env: NodeJS.ProcessEnv, worktree: string): Promise<LoginConfiguration>;
  /**
   * What the CLI must first do outside the sandbox on this login, if anything (OpenCode installs
   * its plugin package into its config folder on its first run, which a turn may not write): the
   * turn does not run, and this says what to do. Undefined when the CLI can run sandboxed.
   */
  unready?(home: string, env: NodeJS.ProcessEnv): Promise<string | undefined>;
  /**
   * Variables the CLI reads (names, or prefixes ending in `*`): with the login's own, its home
   * variable and the common ones (policy.ts), the only ones that enter a sandboxed turn.
   */
  readonly env?: readonly string[];
}

/** Where a turn runs: its project's main checkout and the agent's worktree. */
export interface TurnPlace {
  project: string;
  worktree: string;
}

/** Files and folders of a login's home, absolute. */
export interface HomePaths {
  files: string[];
  folders: string[];
}

/**
 * A login's executable configuration. `blankFiles` are files the CLI loads at every start and
 * reads an empty one as none (a `.env`): one that is missing is made empty before the turn, so
 * that it is held read-only for the whole turn rather than removed after it (which leaves the
 * turn's own time for another, unsandboxed start of the same login to load what the turn wrote).
 */
export interface ExecutablePaths extends HomePaths {
  blankFiles?: string[];
  /**
   * Files held read-only for the whole turn even when missing: the sandbox runtime's empty
   * placeholder stands for a missing one while the turn runs, and is gone after it. For files the
   * CLI does not open in a turn (Claude Code's daemon and scheduler files), so that the placeholder
   * breaks nothing, where a missing `files` entry is only removed after the turn.
   */
  placeholderFiles?: string[];
}

/** Keys of one JSON file, as paths of property names; `*` stands for every property at that level. */
export interface GuardedJsonKeys {
  file: string;
  keys: readonly (readonly string[])[];
}

/** What a login's configuration adds to its sandbox. */
export interface LoginConfiguration {
  hosts: ConfiguredHost[];
  env: string[];
}

/** A host a login's configuration names, and where (`settings.json env.ANTHROPIC_BASE_URL`). */
export interface ConfiguredHost {
  host: string;
  setting: string;
  /** Named by a file of the worktree's, not of the login's: never opened. */
  repository?: boolean;
}
