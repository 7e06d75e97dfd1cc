import { OffrunError, describeError } from "../foundation/errors.js";
import type { PipedProcess } from "../foundation/process.js";
import type { ProcessRunner } from "../foundation/runner.js";
import { shellLine } from "../foundation/shell-quote.js";
import { PROTOCOL_VERSION } from "../protocol/protocol-views.js";
import { fromResponseError } from "../protocol/client.js";
import { RpcCodes, RpcConnection, RpcReplyError } from "../protocol/rpc-connection.js";
import { parseLine } from "../protocol/rpc-framing.js";
import type { ErrorKind } from "../foundation/errors.js";
import { sshTarget, type Host } from "./hosts-file.js";
import { sshFailure } from "./ssh-errors.js";

/** Between tries after a failure: 1 s, doubling, at most this (plus up to a fifth of jitter). */
export const RECONNECT_CAP_MS = 30_000;
const RECONNECT_FIRST_MS = 1_000;
/** The first answer (hello) must come within this, ssh's own sign-in included. */
const HELLO_TIMEOUT_MS = 20_000;
/** A heartbeat keeps the idle watchdog quiet; no answer for IDLE_MS ends the connection. */
const HEARTBEAT_MS = 15_000;
const IDLE_MS = 60_000;
/** A connection is recycled once a day (the runner's whole-run limit); nothing is lost, it catches up. */
const LIFETIME_MS = 24 * 60 * 60_000;
/**
 * What a host may send that is not the protocol (a login script's banner before the bridge speaks):
 * the first few lines are logged, the rest counted; past the limit the connection is closed.
 */
export const JUNK_LOGGED = 5;
export const JUNK_LIMIT = 200;
/** Requests from a host are never answered (this machine serves it nothing); past this many, the connection is closed. */
export const HOST_REQUEST_LIMIT = 100;
/** What may wait to be written to a host that does not read: past it, the connection is closed. */
export const UNREAD_LIMIT_BYTES = 8 * 1024 * 1024;

export type LinkState = "connecting" | "connected" | "down";

export interface LinkStatus {
  name: string;
  destination: string;
  state: LinkState;
  since: string;
  /** Why the last try failed or the connection ended. */
  error?: { kind: ErrorKind; message: string };
  remote?: { version: string; protocol: number; hostname: string };
  /** The ssh process of the current connection. */
  sshPid?: number;
  /** When the next try is due, while down. */
  retryAt?: string;
}

/**
 * One host's connection: `ssh -T <host> offrun companion stdio`, started through the process
 * runner, speaking the companion's JSON-RPC a line per message. The remote companion owns its
 * agents, so losing this connection stops nothing there: the link tries again with capped
 * backoff, and whoever follows it (mirror.ts) catches up by offset.
 */
export class HostLink {
  private connection: RpcConnection | undefined;
  private process: PipedProcess | undefined;
  private status: LinkStatus;
  private failures = 0;
  private retry: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly listeners = new Set<() => void>();
  private waiters: (() => void)[] = [];

  constructor(
    readonly host: Host,
    private readonly options: { runner: ProcessRunner; version: string; log: (line: string) => void },
  ) {
    this.status = { name: host.name, destination: host.destination, state: "connecting", since: now() };
  }

  get state(): LinkStatus {
    return { ...this.status };
  }

  /** Called each time a connection is made (and has said hello). */
  onConnected(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  start(): void {
    if (!this.closed && !this.process) void this.connect();
  }

  /** Resolves once a try in progress has connected or failed, or after `timeoutMs`. */
  async settled(timeoutMs: number): Promise<void> {
    if (this.status.state !== "connecting") return;
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      this.waiters.push(resolve);
      timer = setTimeout(resolve, timeoutMs);
    });
    clearTimeout(timer);
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  /** Sends one request to the host's companion, time-boxed; a connection being made is waited for. */
  async call(method: string, params: unknown, timeoutMs = 30_000): Promise<unknown> {
    await this.settled(Math.min(timeoutMs, HELLO_TIMEOUT_MS));
    const connection = this.connection;
    if (!connection || this.status.state !== "connected") {
      const why = this.status.error ? `: ${this.status.error.message}` : " yet";
      throw new OffrunError("companion_unavailable", `${this.host.name} is not connected${why}`);
    }
    try {
      return await connection.request(method, params, {
        timeoutMs,
        onTimeout: () =>
          new OffrunError("timed_out", `${this.host.name} did not answer ${method} within ${timeoutMs / 1000} s.`),
      });
    } catch (error) {
      throw remoteError(this.host.name, error);
    }
  }

  /** Ends the connection (a kill of ssh; the host's agents go on) and stops trying again. */
  close(): void {
    this.closed = true;
    this.status = { ...this.status, state: "down", since: now(), retryAt: undefined };
    clearTimeout(this.retry);
    clearInterval(this.heartbeat);
    this.process?.kill();
  }

  private async connect(): Promise<void> {
    this.status = { ...this.status, state: "connecting", since: now(), retryAt: undefined };
    let target: string[];
    try {
      target = sshTarget(this.host);
    } catch (error) {
      return this.down(error instanceof OffrunError ? error : new OffrunError("invalid_input", describeError(error)));
    }
    const remote = shellLine([this.host.offrun ?? "offrun", "companion", "stdio"]);
    // BatchMode: the companion has no terminal to ask for a password or a new host key on.
    const args = ["-T", "-o", "BatchMode=yes", "-o", "ConnectTimeout=15", "-o", "ServerAliveInterval=15"];
    // The pid comes with the spawn: a runner may start the process a moment after handing it over.
    let sshPid: number | undefined;
    const pid = () => sshPid;
    const child = this.options.runner.piped(
      { file: "ssh", args: [...args, "-o", "ServerAliveCountMax=3", ...target, "--", remote] },
      { timeoutMs: LIFETIME_MS, idleTimeoutMs: IDLE_MS, onSpawn: (pid) => (sshPid = pid) },
    );
    this.process = child;
    // A line per message each way, as every version's `companion stdio` speaks (protocol/rpc-framing.ts).
    // What the host sends is input: lines that are not the protocol, requests, and a host that never
    // reads what is written to it are each bounded, and past the bound the connection is closed.
    const refuse = (why: string) => {
      if (refused) return;
      refused = why;
      this.options.log(`host ${this.host.name}: ${why}; closing the connection`);
      child.kill();
    };
    let refused: string | undefined;
    let junk = 0;
    let requests = 0;
    const connection = new RpcConnection(
      {
        send: (message) => {
          if (!child.stdin.writable) return;
          if (child.stdin.writableLength > UNREAD_LIMIT_BYTES) {
            return refuse(`it read none of the last ${Math.round(child.stdin.writableLength / 1024)} KB sent to it`);
          }
          child.stdin.write(`${JSON.stringify(message)}\n`);
        },
        close: () => child.kill(),
      },
      undefined,
      (method) => {
        requests += 1;
        if (requests > HOST_REQUEST_LIMIT) refuse(`it sent ${requests} requests (${method} last); a host asks nothing`);
      },
    );
    this.connection = connection;
    child.stdout.on("data", (line: unknown) => {
      if (refused) return;
      try {
        const message = parseLine(String(line));
        if (message) connection.receive(message);
      } catch (error) {
        // Not the bridge's (a login script that prints, say): skipped, as it always was; the bridge's lines follow.
        junk += 1;
        if (junk <= JUNK_LOGGED) this.options.log(`host ${this.host.name}: ${describeError(error)}`);
        if (junk > JUNK_LIMIT) refuse(`it sent ${junk} lines that are not Offrun's protocol`);
      }
    });
    let said = false;
    const saidHello = this.hello(connection, child, pid).then(
      () => (said = true),
      (error: unknown) => {
        // The process may already be gone: its exit says why better than the hello did.
        if (!(error instanceof OffrunError && error.kind === "companion_unavailable")) child.kill();
        return error;
      },
    );
    const ended = await child.exited;
    // A hello still unanswered ends with the connection, at once: ssh's exit says why.
    connection.end(new Error("ssh ended"));
    const helloError = await saidHello;
    this.connection = undefined;
    this.process = undefined;
    clearInterval(this.heartbeat);
    if (this.closed) return;
    const failure = refused
      ? new OffrunError("conflict", `${this.host.name} was disconnected: ${refused}.`)
      : helloError instanceof OffrunError && helloError.kind === "conflict"
        ? helloError
        : sshFailure(this.host.name, ended);
    if (said) this.failures = 0;
    this.options.log(`host ${this.host.name}: ${failure.message}`);
    this.down(failure);
  }

  private async hello(connection: RpcConnection, child: PipedProcess, sshPid: () => number | undefined): Promise<void> {
    const reply = (await connection
      .request(
        "hello",
        { protocol: PROTOCOL_VERSION, version: this.options.version },
        { timeoutMs: HELLO_TIMEOUT_MS, onTimeout: () => new Error(`no answer in ${HELLO_TIMEOUT_MS / 1000} s`) },
      )
      .catch((error: unknown) => {
        if (error instanceof RpcReplyError && error.code === RpcCodes.MethodNotFound) {
          throw new OffrunError(
            "conflict",
            `offrun on ${this.host.name} is too old: update offrun on ${this.host.name}.`,
          );
        }
        throw new OffrunError("companion_unavailable", `no hello from ${this.host.name}: ${describeError(error)}`);
      })) as { protocol?: unknown; version?: unknown; hostname?: unknown };
    const protocol = typeof reply.protocol === "number" ? reply.protocol : 0;
    const version = typeof reply.version === "string" ? reply.version : "?";
    if (protocol !== PROTOCOL_VERSION) {
      const older = protocol < PROTOCOL_VERSION ? this.host.name : "this machine";
      throw new OffrunError(
        "conflict",
        `offrun ${version} on ${this.host.name} speaks protocol ${protocol}, this one ${PROTOCOL_VERSION}: update offrun on ${older}.`,
      );
    }
    child.progress();
    this.status = {
      ...this.status,
      state: "connected",
      since: now(),
      error: undefined,
      remote: { version, protocol, hostname: typeof reply.hostname === "string" ? reply.hostname : "?" },
      ...(sshPid() === undefined ? {} : { sshPid: sshPid() }),
    };
    this.options.log(`host ${this.host.name}: connected (offrun ${version} on ${this.status.remote?.hostname})`);
    this.heartbeat = setInterval(() => {
      void connection.request("ping", {}).then(
        () => child.progress(),
        () => undefined,
      );
    }, HEARTBEAT_MS);
    this.wake();
    for (const listener of this.listeners) listener();
  }

  private down(error: OffrunError): void {
    this.failures += 1;
    const base = Math.min(RECONNECT_CAP_MS, RECONNECT_FIRST_MS * 2 ** (this.failures - 1));
    const wait = base + Math.random() * base * 0.2;
    this.status = {
      name: this.host.name,
      destination: this.host.destination,
      state: "down",
      since: now(),
      error: { kind: error.kind, message: error.message },
      ...(this.status.remote ? { remote: this.status.remote } : {}),
      retryAt: new Date(Date.now() + wait).toISOString(),
    };
    this.wake();
    if (this.closed) return;
    this.retry = setTimeout(() => void this.connect(), wait);
  }
}

const now = () => new Date().toISOString();

/** A remote companion's error, kind kept, with the host named. */
function remoteError(host: string, error: unknown): Error {
  if (error instanceof OffrunError) return error;
  if (error instanceof RpcReplyError) return fromResponseError(error, host);
  return new OffrunError("companion_unavailable", `${host}: the connection ended (${describeError(error)}).`);
}
