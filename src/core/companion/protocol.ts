import { z } from "zod";
import { MODES } from "../foundation/model.js";

/** Requests the faces send to the companion. Every request is validated with these schemas. */
export const methods = {
  ping: z.object({}).optional(),
  "agent.start": z.object({
    project: z.string().min(1),
    prompt: z.string(),
    harness: z.string().optional(),
    mode: z.enum(MODES).optional(),
    name: z.string().optional(),
    base: z.string().optional(),
    model: z.string().optional(),
    account: z.string().optional(),
    force: z.boolean().optional(),
  }),
  "agent.send": z.object({ project: z.string().min(1), name: z.string().min(1), prompt: z.string() }),
  "agent.handoff": z.object({
    project: z.string().min(1),
    name: z.string().min(1),
    harness: z.string().min(1),
    account: z.string().optional(),
    force: z.boolean().optional(),
    model: z.string().optional(),
    message: z.string().optional(),
  }),
  /** Move an idle agent to another login of its CLI, its session copied there (`offrun switch`). */
  "agent.switch": z.object({
    project: z.string().min(1),
    name: z.string().min(1),
    account: z.string().min(1),
    force: z.boolean().optional(),
  }),
  "agent.stop": z.object({ project: z.string().min(1), name: z.string().min(1) }),
  "agent.wait": z.object({ project: z.string().min(1), name: z.string().min(1) }),
  /** Allow or deny what a running agent waits on (`offrun approve`). */
  "agent.approve": z.object({
    project: z.string().min(1),
    name: z.string().min(1),
    requestId: z.string().min(1).optional(),
    deny: z.boolean().optional(),
    always: z.boolean().optional(),
    reason: z.string().optional(),
  }),
  /** Answer a running agent's question (`offrun answer`). */
  "agent.answer": z.object({
    project: z.string().min(1),
    name: z.string().min(1),
    requestId: z.string().min(1).optional(),
    text: z.string().min(1),
  }),
  /** Review an agent's work with another login, read-only (`offrun review`); `wait` answers with the review. */
  "agent.review": z.object({
    project: z.string().min(1),
    name: z.string().min(1),
    harness: z.string().min(1).optional(),
    account: z.string().min(1).optional(),
    model: z.string().min(1).optional(),
    force: z.boolean().optional(),
    requestFixes: z.boolean().optional(),
    wait: z.boolean().optional(),
  }),
  shutdown: z.object({}).optional(),
} as const;
export type MethodName = keyof typeof methods;
export type MethodParams<M extends MethodName> = z.input<(typeof methods)[M]>;

/** What `ping` answers: enough for `offrun companion status`. */
export const pingResultSchema = z.object({
  pid: z.number(),
  version: z.string(),
  startedAt: z.string(),
  running: z.number(),
});
export type PingResult = z.infer<typeof pingResultSchema>;

/** Error codes on the wire; `data.kind` carries the OffrunError kind so faces can switch on it. */
export const RPC_OFFRUN_ERROR = -32001;
export const rpcErrorDataSchema = z.object({ kind: z.string(), details: z.string().optional() });
