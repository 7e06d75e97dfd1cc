import { OffrunError } from "../core/foundation/errors.js";
import { output } from "./output.js";
import { withAgent, type HostOptions } from "./target.js";

/** approve and answer: the user's decision goes to the companion, which hands it to the running CLI. */

export async function approve(
  name: string,
  options: HostOptions & { deny?: boolean; always?: boolean; reason?: string; request?: string },
): Promise<void> {
  if (options.deny && options.always) {
    throw new OffrunError("invalid_input", "--always allows from now on; it cannot go with --deny.");
  }
  if (options.reason !== undefined && !options.deny) {
    throw new OffrunError("invalid_input", "--reason goes with --deny (it tells the agent why).");
  }
  const decided = await withAgent(name, options, (target) =>
    target.caller.call("agent.approve", {
      project: target.project,
      name: target.name,
      requestId: options.request,
      deny: options.deny,
      always: options.always,
      reason: options.reason,
    }),
  );
  output(options, decided, () => {
    const what = `${decided.request.id} (${decided.request.text})`;
    if (options.deny) return `Denied ${what}; ${name} was told${options.reason ? ` why: ${options.reason}` : ""}.`;
    const always = decided.remembered ? ` Requests matching ${decided.remembered} are allowed from now on.` : "";
    return `Allowed ${what}; ${name} goes on.${always}`;
  });
}

export async function answer(
  name: string,
  words: string[],
  options: HostOptions & { request?: string },
): Promise<void> {
  const text = words.join(" ").trim();
  if (text === "") throw new OffrunError("invalid_input", `Say the answer: offrun answer ${name} "your answer".`);
  const decided = await withAgent(name, options, (target) =>
    target.caller.call("agent.answer", {
      project: target.project,
      name: target.name,
      requestId: options.request,
      text,
    }),
  );
  output(options, decided, () => `Answered ${decided.request.id}; ${name} goes on.`);
}
