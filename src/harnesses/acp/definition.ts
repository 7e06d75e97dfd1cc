import os from "node:os";
import path from "node:path";
import type { ParsedEvent } from "../../core/foundation/events.js";
import type { Mode } from "../../core/foundation/model.js";
import type { Command } from "../../core/foundation/process.js";
import type { Decision, PendingRequest, TurnInput } from "../types.js";

/**
 * Everything Offrun needs to drive one agent over ACP (Agent Client Protocol, JSON-RPC on stdio).
 * Built-ins (Grok Build) write one in code; users declare theirs in harnesses.json, which
 * custom.ts validates into this shape.
 */
export interface AcpAgentDefinition {
  /** Lower-case slug; also names the login folders and the OFFRUN_<ID>_BIN override. */
  id: string;
  displayName: string;
  /** A binary name looked up on PATH, or an absolute path. */
  command: string;
  /** Arguments that make the binary speak ACP on stdio, e.g. ["--acp"] or ["acp"]. */
  args: string[];
  /** Extra environment for the agent (never secrets: the loader refuses secret-looking names). */
  env: Record<string, string>;
  /** The variable that moves the agent's home (config, sessions, login); HOME when it has none. */
  homeVariable: string;
  /** The Default login's home, "~/" allowed; absent: $homeVariable, else the user's home. */
  defaultHome?: string;
  /** ACP session mode ids to switch to per Offrun mode (session/set_mode), when the agent offers them. */
  modes: Partial<Record<Mode, string>>;
  installHint: string;
  /** How long `initialize` may take before the turn fails (a wrong command can sit silent forever). */
  initializeTimeoutMs: number;
  /**
   * Auth method ids to try, in order, when the agent answers session/new with auth_required
   * (-32000) and offers one of them in `initialize` (Grok Build asks for an explicit authenticate).
   */
  authMethodIds: string[];
  /** Shown with a not-logged-in error: the command that signs in, e.g. "grok login". */
  loginHint?: string;
  /** The hosts the agent talks to, which a sandboxed turn may reach (`host`, `host:port`, `*.domain`). */
  hosts?: string[];
  /** Where in a login's home the agent keeps its state (`~/.kiro`): what a sandboxed turn writes. */
  stateFolders?: string[];
  /** The argv after the binary for this turn, when it depends on the turn (Grok's `-m MODEL` before `stdio`); else `args`. */
  argsFor?: (input: TurnInput) => string[];
  /**
   * Mode ids the agent takes in session/set_mode without listing them in its session's `modes`
   * (Grok Build's `default`, `plan`, `ask`). Used only when the agent lists none.
   */
  unlistedModes?: readonly string[];
  /** What the agent asks and tells beyond ACP's own methods (built-ins only: the loader sets none). */
  extensions?: AcpExtensions;
}

/** What an extension handler may do within the turn it runs in. */
export interface AcpExtensionTurn {
  readonly mode: Mode;
  /** Puts a question or approval to the user (the text streamed so far is logged first). */
  ask(request: Omit<PendingRequest, "id">): Promise<Decision>;
  emit(events: ParsedEvent[]): void;
  /**
   * Ends the prompt with these events (ending in a turn_end) if the agent has not answered
   * session/prompt within `graceMs`: for an agent that says by notification that the prompt ended.
   */
  endUnlessAnswered(events: ParsedEvent[], graceMs: number): void;
}

/**
 * An agent's own JSON-RPC methods, by their names on the wire (with ACP's leading "_"). A request
 * handler's result is the agent's answer; a notification handler's result is ignored.
 */
export interface AcpExtensions {
  requests?: Record<string, (params: unknown, turn: AcpExtensionTurn) => Promise<unknown>>;
  notifications?: Record<string, (params: unknown, turn: AcpExtensionTurn) => void>;
  /** The turn's usage from the session/prompt answer, when the agent reports it in its own shape. */
  promptUsage?: (response: unknown) => ParsedEvent | undefined;
  /** The events that end a turn failed with this JSON-RPC error, when the agent has its own codes; else undefined. */
  failure?: (error: { code: number; message: string; data?: unknown }, now: Date) => ParsedEvent[] | undefined;
}

export const DEFAULT_INITIALIZE_TIMEOUT_MS = 30_000;

/** What `locateBinary` looks for: a bare name is searched on PATH, an absolute command is used as it is. */
export function binaryNameOf(definition: AcpAgentDefinition): string {
  return definition.command;
}

export function defaultHomeOf(definition: AcpAgentDefinition, env: NodeJS.ProcessEnv): string {
  const home = env.HOME || os.homedir();
  const fromVariable = definition.homeVariable === "HOME" ? undefined : env[definition.homeVariable];
  if (fromVariable) return fromVariable;
  if (definition.defaultHome === undefined) return home;
  return definition.defaultHome.startsWith("~/")
    ? path.join(home, definition.defaultHome.slice(2))
    : definition.defaultHome;
}

/**
 * The agent process of one live turn. An absolute `command` wins over the located binary, so a
 * user's explicit path is what runs; the login's home goes into the agent's home variable.
 */
export function acpCommand(definition: AcpAgentDefinition, input: TurnInput): Command {
  const env: NodeJS.ProcessEnv = { ...input.env, ...definition.env };
  if (input.loginHome !== undefined) env[definition.homeVariable] = input.loginHome;
  const file = path.isAbsolute(definition.command) ? definition.command : input.binary || definition.command;
  const args = definition.argsFor ? definition.argsFor(input) : [...definition.args];
  return { file, args, cwd: input.cwd, env };
}
