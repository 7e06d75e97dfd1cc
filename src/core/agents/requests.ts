import type { PendingEntry } from "./approvals.js";
import type { AgentRecord, Mode } from "../foundation/model.js";

/** Requests to the supervisor and what it answers: the companion's RPC methods carry these. */

export interface StartRequest {
  /** Any folder inside the project's repository. */
  project: string;
  prompt: string;
  harness?: string;
  mode?: Mode;
  name?: string;
  base?: string;
  model?: string;
  /** A login label to pin; without it the login with the most headroom is picked. */
  account?: string;
  /** Dispatch even to a limited login. */
  force?: boolean;
  /** Run the CLI inside the sandbox; without it, the project's `sandbox.enabled` decides. */
  sandbox?: boolean;
}

export interface HandoffRequest {
  project: string;
  name: string;
  harness: string;
  account?: string;
  force?: boolean;
  model?: string;
  message?: string;
}

export interface Started {
  agent: AgentRecord;
  /** The number of the turn this request started (later ones follow on failover or retry). */
  firstTurn: number;
  /** Things the user should know at once (every login nearly full, say). */
  warnings: string[];
}

/** What `offrun approve` / `offrun answer` get back. */
export interface Decided {
  agent: AgentRecord;
  request: PendingEntry["request"];
  /** The alwaysAllow rule written to .offrun/config.json by --always. */
  remembered?: string;
}
