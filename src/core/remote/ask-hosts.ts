import { CompanionClient } from "../protocol/client.js";
import type { MethodParams, Reply } from "../protocol/protocol.js";
import type { HostCopies } from "../protocol/protocol-views.js";
import { describeError } from "../foundation/errors.js";
import { runningCompanionPid } from "../foundation/pids.js";
import { readHosts, type Host } from "./hosts-file.js";

/**
 * A face's question to every host (core/remote). Only the companion holds the SSH connections, so
 * the question goes to it, and it asks each host within a time box. Whatever goes wrong on the way
 * (hosts.json unreadable, no companion, a companion that does not answer, a host that is down) comes
 * back as that host's reply with why: a face lists the hosts that answered and names the others.
 */

type Merged = "hosts.agents" | "hosts.quota";
type Answered<M extends Merged> = Extract<Reply<M>["hosts"][number], { ok: true }>["value"];

export type HostReply<T> = (
  | { host: string; ok: true; value: T; entry?: Host }
  | {
      host: string;
      ok: false;
      message: string;
      /** This machine's companion is not running: starting it is the fix, not anything on the host. */
      companionDown?: boolean;
    }
) & {
  /** hosts.agents: what this machine keeps of the host's logs, and what it refused over their budgets. */
  copies?: HostCopies;
};

/** Asks `method` of every host; `companionRunning` when the caller knows already. Never throws. */
export async function askHosts<M extends Merged>(
  method: M,
  options: { timeoutMs?: number; companionRunning?: boolean } = {},
): Promise<HostReply<Answered<M>>[]> {
  let hosts: Host[];
  try {
    hosts = await readHosts();
  } catch (error) {
    return [{ host: "hosts.json", ok: false, message: describeError(error) }];
  }
  if (hosts.length === 0) return [];
  const all = (message: string, companionDown?: true) =>
    hosts.map((h) => ({ host: h.name, ok: false as const, message, ...(companionDown ? { companionDown } : {}) }));
  const running = options.companionRunning ?? (await runningCompanionPid()) !== undefined;
  if (!running) return all("the companion, which keeps the connections to the hosts, is not running", true);
  let answer;
  try {
    const client = await CompanionClient.connect();
    try {
      // Both methods take the same parameters: the time box, or the companion's own.
      const params = (options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }) as MethodParams<M>;
      answer = (await client.call(method, params)) as Reply<Merged>;
    } finally {
      client.close();
    }
  } catch (error) {
    return all(describeError(error));
  }
  const entries = new Map(hosts.map((h) => [h.name, h]));
  return answer.hosts.map((h): HostReply<Answered<M>> => {
    const copies = h.copies ? { copies: h.copies } : {};
    if (!h.ok) return { host: h.host, ok: false, message: h.error.message, ...copies };
    const entry = entries.get(h.host);
    return { host: h.host, ok: true, value: h.value as Answered<M>, ...(entry ? { entry } : {}), ...copies };
  });
}
