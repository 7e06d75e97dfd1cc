import { describeError } from "../foundation/errors.js";
import type { TailedEvent } from "../notify/chat-tail.js";
import type { SnapshotAgent, SnapshotQuota } from "./snapshot.js";
import { viewReplies, type AgentsListed, type HostCopies } from "../protocol/protocol-views.js";
import type { QuotaListRow } from "../quota/row.js";
import type { HostLinks } from "../remote/links.js";
import type { HostLink } from "../remote/link.js";
import { readCopies } from "./copy-budget.js";
import { ChatMirror, hostDir } from "./mirror.js";
import { hostSnapshot } from "./snapshot-part.js";

/** How often each host's logins are asked for their quota (the host's own companion keeps it current). */
const QUOTA_EVERY_MS = 60_000;
const QUOTA_ANSWER_MS = 30_000;
const QUOTA_RETRY_MS = 5_000;

export interface HostFollower {
  /** Every host's agents and logins as last heard, for state.json. */
  snapshot(): Promise<{ agents: SnapshotAgent[]; quota: SnapshotQuota[] }>;
  /** A host's agents while its mirror knows them current (ChatMirror.currentListing); else ask the host. */
  listing(link: HostLink): AgentsListed | undefined;
  /** Before a request is forwarded to the host; what it returns is called once the request ended. */
  forwarding(link: HostLink): () => void;
  /** A host's copies against their budgets: as its mirror's last round found them, else as the last one kept. */
  copies(host: string): Promise<HostCopies | undefined>;
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
  const quota = new Map<HostLink, QuotaListRow[]>();
  // A host's quota.list may run its CLIs' status commands: slow on a busy host, so it gets time,
  // and a failed ask is tried again soon rather than at the next minute.
  const askQuota = async (link: HostLink): Promise<void> => {
    try {
      quota.set(link, viewReplies["quota.list"].parse(await link.call("quota.list", {}, QUOTA_ANSWER_MS)).logins);
      onChange();
    } catch (error) {
      if (link.state.state !== "connected") return;
      log(`host ${link.host.name}: quota: ${describeError(error)}; asking again in ${QUOTA_RETRY_MS / 1000} s`);
      setTimeout(() => void askQuota(link), QUOTA_RETRY_MS).unref();
    }
  };
  const quotaTimer = setInterval(() => {
    for (const link of mirrors.keys()) if (link.state.state === "connected") void askQuota(link);
  }, QUOTA_EVERY_MS);
  quotaTimer.unref();

  hosts.onConnected((link) => {
    // A changed entry of hosts.json (a budget, say) is a new link: the old one's mirror follows nothing.
    const current = new Set(hosts.all());
    for (const [old, stale] of mirrors) {
      if (current.has(old)) continue;
      mirrors.delete(old);
      quota.delete(old);
      void stale.close();
    }
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
    void askQuota(link);
  });
  return {
    listing: (link) => mirrors.get(link)?.currentListing(),
    forwarding: (link) => mirrors.get(link)?.forwarding() ?? (() => undefined),
    copies: async (host) => {
      const link = hosts.all().find((l) => l.host.name === host);
      return (link && mirrors.get(link)?.copies) ?? (await readCopies(hostDir(host)));
    },
    snapshot: async () => {
      const current = new Set(hosts.all());
      const parts = [...mirrors]
        .filter(([link]) => current.has(link))
        .map(([link, mirror]) =>
          hostSnapshot(link.host.name, mirror.listing, (p, a) => mirror.chatFacts(p, a), quota.get(link)),
        );
      return { agents: parts.flatMap((p) => p.agents), quota: parts.flatMap((p) => p.quota) };
    },
    close: async () => {
      clearInterval(quotaTimer);
      for (const mirror of mirrors.values()) await mirror.close();
    },
  };
}
