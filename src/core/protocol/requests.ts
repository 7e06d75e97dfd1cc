import * as z from "zod";
import { once } from "../foundation/lazy-schemas.js";
import { agentRecordSchema, MODES } from "../foundation/model.js";

/**
 * What the supervisor is asked and answers, as zod schemas: the companion's protocol
 * (protocol.ts) validates its `agent.start`, `agent.handoff`, … requests and their
 * replies with these, and the supervisor, the faces and the server's handlers use the types
 * inferred from them, so one declaration says what a request is. Built on first use (see
 * foundation/lazy-schemas.ts): a short-lived `offrun` command builds only what it parses.
 */

export const startRequestSchema = once(() =>
  z.object({
    /** Any folder inside the project's repository. */
    project: z.string().min(1),
    prompt: z.string(),
    harness: z.string().optional(),
    mode: z.enum(MODES).optional(),
    name: z.string().optional(),
    base: z.string().optional(),
    model: z.string().optional(),
    /** A login label to pin; without it the login with the most headroom is picked. */
    // `account` names the login: the key is kept for peers (faces, hosts) of earlier versions.
    account: z.string().optional(),
    /** Dispatch even to a limited login. */
    force: z.boolean().optional(),
    /** Run the CLI inside the sandbox; without it, the project's `sandbox.enabled` decides. */
    sandbox: z.boolean().optional(),
  }),
);
export type StartRequest = z.infer<ReturnType<typeof startRequestSchema>>;

export const handoffRequestSchema = once(() =>
  z.object({
    project: z.string().min(1),
    name: z.string().min(1),
    harness: z.string().min(1),
    // `account` names the login: the key is kept for peers (faces, hosts) of earlier versions.
    account: z.string().optional(),
    force: z.boolean().optional(),
    model: z.string().optional(),
    message: z.string().optional(),
  }),
);
export type HandoffRequest = z.infer<ReturnType<typeof handoffRequestSchema>>;

/** A turn was started (start, send, handoff): the agent, warnings for the user, and the turn that began. */
export const startedSchema = once(() =>
  z.object({
    agent: agentRecordSchema,
    /** Things the user should know at once (every login nearly full, say). */
    warnings: z.array(z.string()),
    /** The number of the turn this request started (later ones follow on failover or retry). */
    firstTurn: z.number().int().positive(),
  }),
);
export type Started = z.infer<ReturnType<typeof startedSchema>>;

/** What `offrun approve` / `offrun answer` get back: an approval or answer reached the running turn. */
export const decidedSchema = once(() =>
  z.object({
    agent: agentRecordSchema,
    /** The request it answered (harnesses/types.ts PendingRequest). */
    request: z.object({
      id: z.string(),
      kind: z.enum(["approval", "question"]),
      tool: z.string().optional(),
      input: z.unknown().optional(),
      text: z.string(),
      alwaysKey: z.string().optional(),
    }),
    /** The alwaysAllow rule written to .offrun/config.json by --always. */
    remembered: z.string().optional(),
  }),
);
export type Decided = z.infer<ReturnType<typeof decidedSchema>>;
