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
 */
export async function approvedCommand(
  world: World,
  harness: string,
  name: string,
  command: string,
  /** Runs once the agent waits for the approval (its worktree exists; the command has not run). */
  beforeApprove?: () => Promise<void>,
): Promise<{ output: string; shown: Shown }> {
  world.server.script({ kind: "shell", command }, { kind: "text", text: `Done with ${name}.` });
  expect(
    await world.offrun(["start", "--harness", harness, "--sandbox", "--name", name, `run the command for ${name}`]),
  ).toSucceed();
  await eventually(
    async () => ((await shown(world, name)).pending.length > 0 ? true : undefined),
    60_000,
    `${name} to ask`,
  );
  await beforeApprove?.();
  expect(await world.offrun(["approve", name])).toSucceed();
  const done = await eventually(
    async () => {
      const now = await shown(world, name);
      return now.agent.status === "idle" || now.agent.status === "failed" ? now : undefined;
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
