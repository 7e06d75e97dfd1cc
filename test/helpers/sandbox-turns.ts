import { eventually } from "./offrun.js";
import type { World } from "./e2e.js";

/** What `offrun show --json` says of a sandboxed agent, the parts these tests read. */
export interface Shown {
  agent: { status: string; worktree: string; branch: string; sandbox?: boolean };
  pending: { id: string; type: string }[];
  events: {
    type: string;
    output?: string;
    text?: string;
    message?: string;
    outcome?: string;
    kind?: string;
    target?: string;
    setting?: string;
    repository?: boolean;
    sandbox?: boolean;
  }[];
}

export async function shown(world: World, name: string): Promise<Shown> {
  return JSON.parse((await world.offrun(["show", name, "--json"])).stdout) as Shown;
}

/**
 * Starts a sandboxed agent whose model calls the shell with `command`, approves the call as the
 * user would, and waits for the turn to end: what the command printed, and the agent as it ended.
 * With `sandbox: false`, the same for an agent outside the sandbox; with `send`, a next turn of an
 * agent that exists.
 */
export async function approvedCommand(
  world: World,
  harness: string,
  name: string,
  command: string,
  /** Runs once the agent waits for the approval (its worktree exists; the command has not run). */
  beforeApprove?: () => Promise<void>,
  options: { sandbox?: boolean; send?: boolean } = {},
): Promise<{ output: string; shown: Shown }> {
  world.server.script({ kind: "shell", command }, { kind: "text", text: `Done with ${name}.` });
  const turnsBefore = options.send ? (await shown(world, name)).events.filter((e) => e.type === "turn_end").length : 0;
  const task = `run the command for ${name}`;
  const sandbox = options.sandbox === false ? ["--no-sandbox"] : ["--sandbox"];
  expect(
    await world.offrun(
      options.send ? ["send", name, task] : ["start", "--harness", harness, ...sandbox, "--name", name, task],
    ),
  ).toSucceed();
  const ended = (now: Shown) =>
    now.events.filter((e) => e.type === "turn_end").length > turnsBefore &&
    (now.agent.status === "idle" || now.agent.status === "failed");
  // A CLI outside the sandbox may run a command it deems harmless (`echo`) without asking, and
  // Pi and OpenCode never ask; with `beforeApprove` the CLI must ask, so that it runs in time.
  const mayRunUnasked = options.sandbox === false || beforeApprove === undefined;
  const asked = await eventually(
    async () => {
      const now = await shown(world, name);
      return now.pending.length > 0 ? "asked" : mayRunUnasked && ended(now) ? "ran" : undefined;
    },
    60_000,
    `${name} to ask`,
  );
  await beforeApprove?.();
  if (asked === "asked") expect(await world.offrun(["approve", name])).toSucceed();
  const done = await eventually(
    async () => {
      const now = await shown(world, name);
      return ended(now) ? now : undefined;
    },
    90_000,
    `${name} to finish`,
  );
  const output = done.events
    .filter((e) => e.type === "tool_result")
    .map((e) => e.output ?? "")
    .join("\n");
  return { output, shown: done };
}
