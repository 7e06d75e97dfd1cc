import type { Handlers } from "../protocol/protocol.js";
import { viewReplies, type hostMethods } from "../protocol/protocol-views.js";
import { HOST_ANSWER_MS, type HostLinks } from "../remote/links.js";
import type { HostFollower } from "./follow.js";

/** The hosts' mirrors, once the companion follows them (run.ts starts that after recovery). */
export interface Following {
  current?: HostFollower;
}

/** The local companion's answers about its hosts (protocol-views.ts hostMethods). */
export function hostHandlers(
  hosts: HostLinks | undefined,
  following: Following = {},
): Handlers<keyof typeof hostMethods> {
  return {
    "host.call": async (p) => {
      if (!hosts) throw new Error("this companion keeps no host connections");
      const link = await hosts.get(p.host);
      // It may change the host: until the mirror has looked again, a listing asks the host.
      const ended = following.current?.forwarding(link);
      try {
        return await link.call(p.method, p.params ?? {}, p.timeoutMs);
      } finally {
        ended?.();
      }
    },
    "hosts.status": async () => ({ hosts: hosts?.status() ?? [] }),
    // A host the mirror knows current answers from memory: `offrun ls` waits for no round trip there.
    "hosts.agents": async (p) => ({
      hosts: (await hosts?.agents(p.timeoutMs, (link) => following.current?.listing(link))) ?? [],
    }),
    "hosts.quota": async (p) => {
      const timeoutMs = p.timeoutMs ?? HOST_ANSWER_MS;
      const answers = await hosts?.ask(
        async (link) => viewReplies["quota.list"].parse(await link.call("quota.list", {}, timeoutMs)),
        timeoutMs,
      );
      return { hosts: answers ?? [] };
    },
  };
}
