import type { Handlers } from "../protocol/protocol.js";
import { viewReplies, type hostMethods } from "../protocol/protocol-views.js";
import { HOST_ANSWER_MS, type HostLinks } from "../remote/links.js";

/** The local companion's answers about its hosts (protocol-views.ts hostMethods). */
export function hostHandlers(hosts: HostLinks | undefined): Handlers<keyof typeof hostMethods> {
  return {
    "host.call": async (p) => {
      if (!hosts) throw new Error("this companion keeps no host connections");
      const link = await hosts.get(p.host);
      return link.call(p.method, p.params ?? {}, p.timeoutMs);
    },
    "hosts.status": async () => ({ hosts: hosts?.status() ?? [] }),
    "hosts.agents": async (p) => ({ hosts: (await hosts?.agents(p.timeoutMs)) ?? [] }),
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
