import { output } from "./output.js";
import { withAgent, type HostOptions } from "./target.js";

/** `offrun switch <agent> --login <label>`: the same CLI, another login, the same session. */

export async function switchLogin(
  name: string,
  options: HostOptions & { login: string; force?: boolean },
): Promise<void> {
  const switched = await withAgent(
    name,
    options,
    async (target) =>
      await target.caller.call("agent.switch", {
        project: target.project,
        name: target.name,
        account: options.login,
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
