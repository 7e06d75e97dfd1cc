import { z } from "zod";
import { agentRecordSchema } from "../core/foundation/model.js";
import { withCompanion } from "./context.js";
import { output, projectDir, type GlobalOptions } from "./output.js";

/** `offrun switch <agent> --account <label>`: the same CLI, another login, the same session. */

const switchedSchema = z.object({
  agent: agentRecordSchema,
  from: z.string(),
  to: z.string(),
  sessionCopied: z.boolean(),
});

export async function switchLogin(
  name: string,
  options: GlobalOptions & { account: string; force?: boolean },
): Promise<void> {
  const switched = await withCompanion(async (client) =>
    switchedSchema.parse(
      await client.request("agent.switch", {
        project: projectDir(options),
        name,
        account: options.account,
        force: options.force,
      }),
    ),
  );
  output(options, switched, () =>
    [
      `${name} moved from login ${switched.from} to ${switched.to} (${switched.agent.harness}).`,
      switched.sessionCopied
        ? "Its session was copied there: the next message resumes the whole conversation."
        : "It had no session yet: the next message starts one there.",
      `  go on: offrun send ${name} "..."`,
    ].join("\n"),
  );
}
