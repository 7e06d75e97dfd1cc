import path from "node:path";
import { OffrunError } from "../../core/foundation/errors.js";
import type { Harness, StreamParser } from "../types.js";
import { binaryNameOf, defaultHomeOf, type AcpAgentDefinition } from "./definition.js";
import { runAcpTurn } from "./live-turn.js";

export { acpCommand, DEFAULT_INITIALIZE_TIMEOUT_MS, type AcpAgentDefinition } from "./definition.js";
export { acpLimitText, failureEvents } from "./failures.js";
export { runAcpTurn } from "./live-turn.js";
export { createAcpUpdateMapper, type AcpUpdateMapper } from "./updates.js";

/**
 * A one-way stream parser for a harness that has none: ACP is a conversation on stdin and stdout,
 * so there is no output to parse without `live`. It only ends the turn with the reason.
 */
function liveOnlyParser(message: string): StreamParser {
  return {
    push: () => [],
    finish: () => [
      { type: "error", kind: "invalid_input", message },
      { type: "turn_end", outcome: "failed", reason: message },
    ],
  };
}

/**
 * A harness for any agent that speaks ACP on stdio. It runs only live: both Build and Planner
 * turns go through `live.runTurn` (Planner switches to the mapped mode and refuses file-changing
 * tool requests). `turnCommand` throws so a caller that forgets `live` gets a clear error instead
 * of an agent waiting for JSON-RPC on a closed stdin.
 */
export function createAcpHarness(definition: AcpAgentDefinition): Harness {
  const liveOnly = `${definition.displayName} is an ACP agent and runs only as a live turn (Harness.live), in Build and in Planner.`;
  return {
    id: definition.id,
    displayName: definition.displayName,
    binaryName: binaryNameOf(definition),
    installHint: definition.installHint,
    homeVariable: definition.homeVariable,
    defaultHome: (env) => defaultHomeOf(definition, env),
    // ACP's session/new picks the id; it cannot be chosen up front.
    choosesSessionId: false,
    liveOnly: true,
    turnCommand() {
      throw new OffrunError("invalid_input", liveOnly);
    },
    createParser: () => liveOnlyParser(liveOnly),
    versionArgs: ["--version"],
    // A custom agent's sign-in is its own business: Offrun only sets the home variable.
    loginArgs: [],
    identity: async () => ({
      signedIn: undefined,
      note: `Offrun cannot ask ${definition.displayName} who is signed in; a turn says so when it is not.`,
    }),
    quotaSources: [],
    quotaCoverage: "limits",
    sessionRoots: () => [],
    copySession: async ({ sessionId }) => {
      throw new OffrunError(
        "not_found",
        `${definition.displayName}'s session ${sessionId} cannot be moved to another login: Offrun does not know where it keeps its sessions.`,
      );
    },
    live: { runTurn: (input, io) => runAcpTurn(definition, input, io) },
    // Its declared variables go in with it: the definition sets them on the agent's command.
    sandbox: {
      hosts: definition.hosts ?? [],
      env: Object.keys(definition.env),
      // Those folders of the login's home it declares as state, and nothing else of it: Offrun does
      // not know which of the rest the agent executes or obeys at its next start.
      state: (home: string) => ({
        folders: (definition.stateFolders ?? []).map((folder) => path.join(home, folder.slice(2))),
        files: [],
      }),
    },
    approvals: "interactive over ACP: each permission request is asked (allow once, always, or reject)",
  };
}
