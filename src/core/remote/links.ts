import { OffrunError, describeError } from "../foundation/errors.js";
import { watchFile } from "../foundation/folder-watch.js";
import type { ProcessRunner } from "../foundation/runner.js";
import { agentsListedSchema, type AgentsListed } from "../protocol/protocol-views.js";
import { hostsFile, readHosts, type Host } from "./hosts-file.js";
import { HostLink, type LinkStatus } from "./link.js";

/** How long `ls` and the other merged views wait for one host before saying it did not answer. */
export const HOST_ANSWER_MS = 2_000;

/** One host's part of a merged view: its answer, or why there is none. */
export type HostAnswer<T> =
  | { host: string; ok: true; value: T; ms: number }
  | { host: string; ok: false; error: { kind: string; message: string }; ms: number };

/**
 * The local companion's connections to every host in hosts.json, one each, made at start and kept:
 * a host added or removed while it runs is picked up from the file.
 */
export class HostLinks {
  private readonly links = new Map<string, HostLink>();
  private watcher: { close(): void } | undefined;
  private readonly connectedListeners = new Set<(link: HostLink) => void>();

  constructor(private readonly options: { runner: ProcessRunner; version: string; log: (line: string) => void }) {}

  async start(): Promise<void> {
    await this.sync();
    this.watcher = watchFile(hostsFile(), () => void this.sync(), {
      log: (line) => this.options.log(`hosts: ${line}`),
    });
  }

  /** Every connection made from now on, of every host (the mirror follows each). */
  onConnected(listener: (link: HostLink) => void): void {
    this.connectedListeners.add(listener);
  }

  /** Makes the links match hosts.json; a changed entry gets a new connection. */
  async sync(): Promise<void> {
    let hosts: Host[];
    try {
      hosts = await readHosts();
    } catch (error) {
      this.options.log(`hosts: ${describeError(error)}`);
      return;
    }
    const wanted = new Map(hosts.map((h) => [h.name, h]));
    for (const [name, link] of this.links) {
      const host = wanted.get(name);
      if (!host || JSON.stringify(host) !== JSON.stringify(link.host)) {
        link.close();
        this.links.delete(name);
      }
    }
    for (const host of hosts) {
      if (this.links.has(host.name)) continue;
      const link = new HostLink(host, this.options);
      link.onConnected(() => {
        for (const listener of this.connectedListeners) listener(link);
      });
      this.links.set(host.name, link);
      link.start();
    }
  }

  /** The link of a host; a host only just added to the file is read first. */
  async get(name: string): Promise<HostLink> {
    if (!this.links.has(name)) await this.sync();
    const link = this.links.get(name);
    if (link) return link;
    const known = [...this.links.keys()];
    throw new OffrunError(
      "not_found",
      `No host named '${name}'.${known.length > 0 ? ` Hosts: ${known.join(", ")}.` : ""} Add it: offrun hosts add ${name} <destination>`,
    );
  }

  status(): LinkStatus[] {
    return [...this.links.values()].map((link) => link.state);
  }

  all(): HostLink[] {
    return [...this.links.values()];
  }

  /** Asks every host at once, each within `timeoutMs`: one that is down or slow never holds up the rest. */
  async ask<T>(request: (link: HostLink) => Promise<T>, timeoutMs = HOST_ANSWER_MS): Promise<HostAnswer<T>[]> {
    await this.sync();
    return Promise.all(
      this.all().map(async (link): Promise<HostAnswer<T>> => {
        const started = Date.now();
        let timer: NodeJS.Timeout | undefined;
        try {
          const value = await Promise.race([
            request(link),
            new Promise<never>((_, reject) => {
              timer = setTimeout(
                () =>
                  reject(new OffrunError("timed_out", `${link.host.name} did not answer within ${timeoutMs / 1000} s`)),
                timeoutMs,
              );
            }),
          ]);
          return { host: link.host.name, ok: true, value, ms: Date.now() - started };
        } catch (error) {
          const kind = error instanceof OffrunError ? error.kind : "process_failed";
          return {
            host: link.host.name,
            ok: false,
            error: { kind, message: describeError(error) },
            ms: Date.now() - started,
          };
        } finally {
          clearTimeout(timer);
        }
      }),
    );
  }

  /** Every host's agents, each time-boxed; `known` gives a host's without asking it, when it can. */
  agents(
    timeoutMs = HOST_ANSWER_MS,
    known: (link: HostLink) => AgentsListed | undefined = () => undefined,
  ): Promise<HostAnswer<AgentsListed>[]> {
    return this.ask(
      async (link) => known(link) ?? agentsListedSchema.parse(await link.call("agents.list", {}, timeoutMs)),
      timeoutMs,
    );
  }

  async close(): Promise<void> {
    this.watcher?.close();
    for (const link of this.links.values()) link.close();
    this.links.clear();
  }
}
