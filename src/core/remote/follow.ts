import { describeError } from "../foundation/errors.js";
import type { TailedEvent } from "../notify/chat-tail.js";
import type { SnapshotAgent, SnapshotQuota } from "../companion/snapshot.js";
import { viewReplies, type QuotaRow } from "../companion/protocol-views.js";
import type { HostLinks } from "./links.js";
import type { HostLink } from "./link.js";
import { ChatMirror } from "./mirror.js";
import { hostSnapshot } from "./snapshot-part.js";

/** How often each host's logins are asked for their quota (the host's own companion keeps it current). */
const QUOTA_EVERY_MS = 60_000;

export interface HostFollower {
  /** Every host's agents and logins as last heard, for state.json. */
  snapshot(): Promise<{ agents: SnapshotAgent[]; quota: SnapshotQuota[] }>;
  close(): Promise<void>;
}

/**
 * Mirrors every host's chat logs while connected, tells the user of their events as of local ones,
 * and keeps what the snapshot shows of each host; `onChange` says when that changed.
 */
export function followHosts(
  hosts: HostLinks,
  notify: (tailed: TailedEvent & { harness?: string; host?: string }) => Promise<void>,
  log: (line: string) => void,
  onChange: () => void = () => undefined,
): HostFollower {
  const mirrors = new Map<HostLink, ChatMirror>();
  const quota = new Map<HostLink, QuotaRow[]>();
  const askQuota = async (link: HostLink) => {
    quota.set(link, viewReplies["quota.list"].parse(await link.call("quota.list", {}, 10_000)).logins);
    onChange();
  };
  const quotaTimer = setInterval(() => {
    for (const link of mirrors.keys()) if (link.state.state === "connected") void askQuota(link).catch(() => undefined);
  }, QUOTA_EVERY_MS);
  quotaTimer.unref();

  hosts.onConnected((link) => {
    let mirror = mirrors.get(link);
    if (!mirror) {
      mirror = new ChatMirror(link, {
        log,
        onChange,
        onEvent: ({ host, project, agent, harness, event }) =>
          void notify({ project, agent, event, harness, host }).catch((error: unknown) =>
            log(`notify: ${describeError(error)}`),
          ),
      });
      mirrors.set(link, mirror);
    }
    mirror.follow();
    void askQuota(link).catch(() => undefined);
  });
  return {
    snapshot: async () => {
      const current = new Set(hosts.all());
      const parts = await Promise.all(
        [...mirrors]
          .filter(([link]) => current.has(link))
          .map(([link, mirror]) => hostSnapshot(link.host.name, mirror.listing, quota.get(link))),
      );
      return { agents: parts.flatMap((p) => p.agents), quota: parts.flatMap((p) => p.quota) };
    },
    close: async () => {
      clearInterval(quotaTimer);
      for (const mirror of mirrors.values()) await mirror.close();
    },
  };
}
