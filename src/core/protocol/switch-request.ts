import * as z from "zod";
import { once } from "../foundation/lazy-schemas.js";
import { agentRecordSchema } from "../foundation/model.js";

/**
 * `agent.switch` (`offrun switch`), as the companion's protocol validates it and switch.ts serves
 * it: kept apart from switch.ts so that the protocol, which every face loads, does not load the
 * switch itself.
 */

export const switchRequestSchema = once(() =>
  z.object({
    project: z.string().min(1),
    name: z.string().min(1),
    /** The login of the same CLI to go on with. */
    // `account` names the login: the key is kept for peers (faces, hosts) of earlier versions.
    account: z.string().min(1),
    /** Even when that login is limited. */
    force: z.boolean().optional(),
  }),
);
export type SwitchRequest = z.infer<ReturnType<typeof switchRequestSchema>>;

export const switchedSchema = once(() =>
  z.object({
    agent: agentRecordSchema,
    from: z.string(),
    to: z.string(),
    /** True when the CLI's session was copied into the other login's home (false: there was none yet). */
    sessionCopied: z.boolean(),
  }),
);
export type Switched = z.infer<ReturnType<typeof switchedSchema>>;
