import type { Handlers } from "../../src/core/protocol/protocol.js";
import type { AgentRecord } from "../../src/core/foundation/model.js";

// Never run: `npm run typecheck` compiles it. Each handler below answers what its reply schema
// (src/core/protocol/protocol.ts) refuses, so each must fail to compile; were the companion's handlers
// typed to return `unknown` again, these directives would be unused, and that fails tsc itself.

declare const agent: AgentRecord;

export const drifting: Handlers<"agent.start" | "agent.switch" | "memory.edit" | "quota.list" | "ping"> = {
  // @ts-expect-error firstTurn is a number, not a string
  "agent.start": async () => ({ agent, warnings: [], firstTurn: "1" }),
  // @ts-expect-error sessionCopied is missing
  "agent.switch": async () => ({ agent, from: "a", to: "b" }),
  // @ts-expect-error memory.edit answers the files it changed, not a count
  "memory.edit": async () => ({ changed: 2 }),
  // @ts-expect-error a quota.list row must say where the login's home is (an older peer requires it)
  "quota.list": async () => ({
    logins: [
      {
        harness: "claude",
        label: "default",
        windows: [],
        attempts: [],
        pace: {},
        displayName: "Claude Code",
        headroom: null,
        coverage: "percent" as const,
        signIn: { state: "unknown" as const },
      },
    ],
  }),
  ping: async () => ({ pid: 1, version: "0", startedAt: "", running: 0 }),
};

/** What the params of a request are is the protocol's too: a handler cannot read a field it does not declare. */
export const reading: Handlers<"agent.stop"> = {
  // @ts-expect-error agent.stop has no `force`
  "agent.stop": async (p) => (p.force ? agent : agent),
};
