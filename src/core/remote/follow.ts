import { describeError } from "../foundation/errors.js";
import type { TailedEvent } from "../notify/chat-tail.js";
import type { HostLinks } from "./links.js";
import type { HostLink } from "./link.js";
import { ChatMirror } from "./mirror.js";

/** Mirrors every host's chat logs while connected, and tells the user of their events as of local ones. */
export function followHosts(
  hosts: HostLinks,
  notify: (tailed: TailedEvent & { harness?: string; host?: string }) => Promise<void>,
  log: (line: string) => void,
): { close(): Promise<void> } {
  const mirrors = new Map<HostLink, ChatMirror>();
  hosts.onConnected((link) => {
    let mirror = mirrors.get(link);
    if (!mirror) {
      mirror = new ChatMirror(link, {
        log,
        onEvent: ({ host, project, agent, harness, event }) =>
          void notify({ project, agent, event, harness, host }).catch((error: unknown) =>
            log(`notify: ${describeError(error)}`),
          ),
      });
      mirrors.set(link, mirror);
    }
    mirror.follow();
  });
  return {
    close: async () => {
      for (const mirror of mirrors.values()) await mirror.close();
    },
  };
}
