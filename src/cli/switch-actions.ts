import { withCompanion } from "./context.js";
import { output, projectDir, type GlobalOptions } from "./output.js";

/** `offrun switch <agent> --account <label>`: the same CLI, another login, the same session. */

export async function switchLogin(
  name: string,
  options: GlobalOptions & { account: string; force?: boolean },
): Promise<void> {
  const switched = await withCompanion(
    async (client) =>
      await client.call("agent.switch", {
        project: projectDir(options),
        name,
        account: options.account,
        force: options.force,
      }),
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
