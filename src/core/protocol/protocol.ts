import path from "node:path";
import * as z from "zod";
import type { Login } from "../foundation/login-model.js";
import { agentEventSchema, type ReviewEvent } from "../foundation/events.js";
import { joinTables, lazyTable } from "../foundation/lazy-schemas.js";
import { agentRecordSchema } from "../foundation/model.js";
import { hostMethods, hostReplies, viewMethods, viewReplies } from "./protocol-views.js";
import { decidedSchema, handoffRequestSchema, startedSchema, startRequestSchema } from "./requests.js";
import { switchedSchema, switchRequestSchema } from "./switch-request.js";

/** A path the companion can use as it is: its working directory is not the face's. */
const absolutePath = () => z.string().refine((p) => path.isAbsolute(p), "expected an absolute path");

/** Requests the faces send to the companion. Every request is validated with these schemas. */
export const methods = joinTables(
  lazyTable({
    ping: () => z.object({}).optional(),
    "agent.start": startRequestSchema,
    "agent.send": () => z.object({ project: z.string().min(1), name: z.string().min(1), prompt: z.string() }),
    "agent.handoff": handoffRequestSchema,
    /** Move an idle agent to another login of its CLI, its session copied there (`offrun switch`). */
    "agent.switch": switchRequestSchema,
    "agent.stop": () => z.object({ project: z.string().min(1), name: z.string().min(1) }),
    "agent.wait": () => z.object({ project: z.string().min(1), name: z.string().min(1) }),
    /** Allow or deny what a running agent waits on (`offrun approve`). */
    "agent.approve": () =>
      z.object({
        project: z.string().min(1),
        name: z.string().min(1),
        requestId: z.string().min(1).optional(),
        deny: z.boolean().optional(),
        always: z.boolean().optional(),
        reason: z.string().optional(),
      }),
    /** Answer a running agent's question (`offrun answer`). */
    "agent.answer": () =>
      z.object({
        project: z.string().min(1),
        name: z.string().min(1),
        requestId: z.string().min(1).optional(),
        text: z.string().min(1),
      }),
    /** Review an agent's work with another login, read-only (`offrun review`); `wait` answers with the review. */
    "agent.review": () =>
      z.object({
        project: z.string().min(1),
        name: z.string().min(1),
        harness: z.string().min(1).optional(),
        // `account` names the login: the key is kept for peers (faces, hosts) of earlier versions.
        account: z.string().min(1).optional(),
        model: z.string().min(1).optional(),
        force: z.boolean().optional(),
        requestFixes: z.boolean().optional(),
        wait: z.boolean().optional(),
      }),
    /** Merge and discard change the worktree and the record: under the agent's turn lock, refused mid-turn. */
    "agent.merge": () => z.object({ project: z.string().min(1), name: z.string().min(1) }),
    "agent.discard": () =>
      z.object({
        project: z.string().min(1),
        name: z.string().min(1),
        /** Stops a running turn first, and discards work that is not merged. */
        force: z.boolean().default(false),
        deleteBranch: z.boolean().default(false),
      }),
    /** Forgets a login (deleting its home with purge) while none of its agents is in a turn. */
    "login.remove": () =>
      z.object({
        harness: z.string().min(1),
        label: z.string().min(1),
        purge: z.boolean().default(false),
        force: z.boolean().default(false),
      }),
    /** Adds a login (its own new home, or an existing folder adopted) while no agent naming it is in a turn. */
    "login.add": () =>
      z.object({
        harness: z.string().min(1),
        label: z.string().min(1),
        home: absolutePath().optional(),
        env: z.record(z.string(), z.string()).default({}),
      }),
    /** Sets (null: clears) the login Start Agent preselects for a harness. */
    "login.default": () => z.object({ harness: z.string().min(1), label: z.string().min(1).nullable() }),
    /** Keeps a login's last `percent` of room out of automatic picks (`offrun logins reserve`). */
    "login.reserve": () => z.object({ harness: z.string().min(1), label: z.string().min(1), percent: z.number() }),
    /** Undoes one memory change while neither its agent nor the file's owner is in a turn (memory/history.ts). */
    "memory.revert": () => z.object({ project: absolutePath(), agent: z.string().min(1), id: z.string().min(1) }),
    /** Writes the memory files the user edited (memory/edit.ts), with the agent idle when one is named. */
    "memory.edit": () =>
      z.object({
        project: absolutePath(),
        agent: z.string().min(1).optional(),
        files: z.array(z.object({ file: z.string().min(1), base: z.string().min(1), text: z.string() })),
      }),
    /** Adds to an agent's draft (a review's fixes); never sent by itself. */
    "draft.add": () => z.object({ project: absolutePath(), name: z.string().min(1), text: z.string().min(1) }),
    /** Replaces an agent's draft with the message box's text; an empty text removes it. */
    "draft.write": () => z.object({ project: absolutePath(), name: z.string().min(1), text: z.string() }),
    /** Renames a login while none of its agents is in a turn or can start one (logins/rename.ts). */
    "login.rename": () => z.object({ harness: z.string().min(1), label: z.string().min(1), to: z.string().min(1) }),
    /** Ends this companion once no turn runs, so the login service's companion takes over its agents. */
    "companion.handover": () => z.object({}).optional(),
    shutdown: () => z.object({}).optional(),
  }),
  viewMethods,
  hostMethods,
);
export type MethodName = keyof typeof methods;
export type MethodParams<M extends MethodName> = z.input<(typeof methods)[M]>;

/** What `ping` answers: enough for `offrun companion status`. */
export const pingResultSchema = z.lazy(() =>
  z.object({
    pid: z.number(),
    version: z.string(),
    startedAt: z.string(),
    running: z.number(),
    /** Started by the login service (launchd or systemd), not by a face or `companion start`. */
    service: z.boolean().optional(),
  }),
);
export type PingResult = z.infer<typeof pingResultSchema>;

const reviewEventSchema = z.lazy(() =>
  agentEventSchema.refine((e): e is ReviewEvent => e.type === "review", "expected a review event"),
);
/** A review that ran to its end (`wait`), and the draft its findings left when fixes were requested. */
export const reviewFinishedSchema = z.lazy(() =>
  z.object({
    review: reviewEventSchema,
    draft: z.string().optional(),
    warnings: z.array(z.string()),
  }),
);
export type ReviewFinished = z.infer<typeof reviewFinishedSchema>;
/** A review that was started and runs on in the companion. */
export const reviewStartedSchema = z.lazy(() =>
  z.object({
    // `account` names the login: the key is kept for peers (faces, hosts) of earlier versions.
    reviewer: z.object({ harness: z.string(), account: z.string(), model: z.string().optional() }),
    warnings: z.array(z.string()),
  }),
);

/** A login as the faces get it back from a change (logins/store.ts). */
const loginSchema = z.lazy(() =>
  z.object({
    harness: z.string(),
    label: z.string(),
    home: z.string(),
    isDefault: z.boolean(),
    adopted: z.boolean(),
    env: z.record(z.string(), z.string()),
    reservePercent: z.number().optional(),
  }),
) satisfies z.ZodType<Login>;

/**
 * What the companion answers to each request, beside the requests themselves (as the ACP SDK
 * types both directions in one place). The client parses every reply with these, so a face gets
 * typed values or an Offrun error naming the method, never a raw ZodError.
 */
export const replies = joinTables(
  lazyTable({
    ping: () => pingResultSchema,
    "agent.start": startedSchema,
    "agent.send": startedSchema,
    "agent.handoff": startedSchema,
    "agent.switch": switchedSchema,
    "agent.stop": () => agentRecordSchema,
    /** The turn's terminal event, or null when no turn ran in the companion. */
    "agent.wait": () => agentEventSchema.nullable(),
    "agent.approve": decidedSchema,
    "agent.answer": decidedSchema,
    /** Finished with `wait`, else started. */
    "agent.review": () => z.union([reviewFinishedSchema, reviewStartedSchema]),
    "agent.merge": () =>
      z.object({
        record: agentRecordSchema,
        mergedInto: z.string(),
        commit: z.string(),
        files: z.array(z.string()),
      }),
    // No worktreeRemoved: the agent was discarded before, and nothing was removed this time.
    "agent.discard": () =>
      z.object({ record: agentRecordSchema, worktreeRemoved: z.string().optional(), logFile: z.string() }),
    "login.remove": () =>
      z.object({
        // `account` names the login: the key is kept for peers (faces, hosts) of earlier versions.
        account: z.looseObject({ harness: z.string(), label: z.string(), home: z.string() }),
        deletedHome: z.boolean(),
        keptBecause: z.enum(["not-purged", "adopted", "outside-offrun", "in-use"]).optional(),
      }),
    "login.add": () => loginSchema,
    // `account` names the login: the key is kept for peers (faces, hosts) of earlier versions.
    "login.default": () => z.object({ account: loginSchema.nullable() }),
    "login.reserve": () => z.object({ account: loginSchema }),
    "memory.revert": () => z.object({ file: z.string(), outcome: z.enum(["reverted", "unchanged"]) }),
    /** The files written, relative to `.offrun/memory`. */
    "memory.edit": () => z.object({ changed: z.array(z.string()) }),
    "draft.add": () => z.object({ file: z.string() }),
    "draft.write": () => z.object({ file: z.string() }),
    "login.rename": () =>
      z.object({
        // `account` names the login: the key is kept for peers (faces, hosts) of earlier versions.
        account: z.looseObject({ harness: z.string(), label: z.string(), home: z.string() }),
        agents: z.array(z.string()),
      }),
    "companion.handover": () => z.object({ running: z.number() }),
    shutdown: () => z.object({ ok: z.boolean() }),
  }),
  viewReplies,
  hostReplies,
);
export type Reply<M extends MethodName> = z.output<(typeof replies)[M]>;

/**
 * The companion's handler of each request: given the parsed params, it must answer what the
 * request's reply schema accepts (its input: what goes on the wire before the client parses it),
 * so a handler that drifts from the protocol fails to compile rather than at a client.
 */
export type Handlers<K extends MethodName> = {
  [M in K]: (params: z.output<(typeof methods)[M]>) => Promise<Sent<z.input<(typeof replies)[M]>>>;
};

/**
 * A reply as a handler may give it: what the schema accepts, less the `[key: string]: unknown` of
 * its loose objects (which keep a newer peer's extra fields when parsing), so that an interface
 * such as Login, which has every named field, still fits.
 */
type Sent<T> = T extends readonly (infer U)[]
  ? Sent<U>[]
  : T extends object
    ? { [K in keyof T as string extends K ? (unknown extends T[K] ? never : K) : K]: Sent<T[K]> }
    : T;

/** The error code of an Offrun error on the wire (rpc-connection.ts, which reads its data). */
export { RPC_OFFRUN_ERROR } from "./rpc-connection.js";
