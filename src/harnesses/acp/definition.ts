import os from "node:os";
import path from "node:path";
import type { Mode } from "../../core/foundation/model.js";
import type { Command } from "../../core/foundation/process.js";
import type { TurnInput } from "../types.js";

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
  if (input.accountHome !== undefined) env[definition.homeVariable] = input.accountHome;
  const file = path.isAbsolute(definition.command) ? definition.command : input.binary || definition.command;
  return { file, args: [...definition.args], cwd: input.cwd, env };
}
