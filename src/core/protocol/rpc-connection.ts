import type { RpcMessage } from "./rpc-framing.js";

/**
 * JSON-RPC 2.0 over any channel that carries whole messages, for both ends: the companion serving
 * its clients, a face asking the companion, the companion asking another host's over ssh. It knows
 * nothing of sockets or framing (rpc-socket.ts and remote/link.ts join it to a stream), so the
 * faces' `offrun ls` loads nothing but this and the socket code.
 */

/** The error codes of JSON-RPC 2.0 that Offrun uses, and its own. */
export const RpcCodes = {
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
} as const;

/** Error codes on the wire; `data.kind` carries the OffrunError kind so faces can switch on it. */
export const RPC_OFFRUN_ERROR = -32001;

/**
 * The data of an Offrun error reply, `{ kind, details? }`, or undefined for data of another shape.
 * Read by hand, not by a schema: a command's start does not wait for zod to read its errors.
 */
export function offrunErrorData(data: unknown): { kind: string; details?: string } | undefined {
  if (typeof data !== "object" || data === null) return undefined;
  const { kind, details } = data as { kind?: unknown; details?: unknown };
  if (typeof kind !== "string" || (details !== undefined && typeof details !== "string")) return undefined;
  return { kind, ...(details === undefined ? {} : { details }) };
}

/** An error reply: the other end's own words and code, with its kind in `data` (offrunErrorData). */
export class RpcReplyError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "RpcReplyError";
  }
}

/** Answers one request; a thrown RpcReplyError is the error reply as it is, anything else -32603. */
export type RequestHandler = (method: string, params: unknown) => Promise<unknown>;

export interface RpcChannel {
  /** Sends one message; a channel that can no longer send drops it (its close ends the connection). */
  send(message: RpcMessage): void;
  /** Ends the channel; the connection is told through `end`. */
  close(): void;
}

interface Waiting {
  resolve: (result: unknown) => void;
  reject: (error: Error) => void;
  timer?: NodeJS.Timeout;
}

export class RpcConnection {
  private nextId = 1;
  private readonly waiting = new Map<number, Waiting>();
  private ended?: Error;
  private readonly closeListeners: ((why: Error) => void)[] = [];

  /**
   * Without `handler` this end only asks: a request that reaches it is refused as an unknown method,
   * or, with `onRequest`, not answered at all and handed to it (a link to a host, which has no
   * business asking this machine anything and must not make it write answers nobody reads).
   */
  constructor(
    private readonly channel: RpcChannel,
    private readonly handler?: RequestHandler,
    private readonly onRequest?: (method: string) => void,
  ) {}

  get isEnded(): boolean {
    return this.ended !== undefined;
  }

  /**
   * Sends a request. With `timeoutMs`, no reply by then rejects with `onTimeout()`'s error (or a
   * plain one), and a reply that comes later is dropped: the other end is not told, since no
   * handler of Offrun's stops halfway.
   */
  request(method: string, params: unknown, options: { timeoutMs?: number; onTimeout?: () => Error } = {}) {
    if (this.ended) return Promise.reject(this.ended);
    const id = this.nextId++;
    return new Promise<unknown>((resolve, reject) => {
      const waiting: Waiting = { resolve, reject };
      if (options.timeoutMs !== undefined) {
        waiting.timer = setTimeout(() => {
          this.waiting.delete(id);
          reject(options.onTimeout?.() ?? new Error(`No answer to ${method} within ${options.timeoutMs} ms.`));
        }, options.timeoutMs);
      }
      this.waiting.set(id, waiting);
      this.channel.send({ jsonrpc: "2.0", id, method, params });
    });
  }

  /** Called once the connection ends (the channel closed, or `dispose`). */
  onClose(listener: (why: Error) => void): void {
    if (this.ended) listener(this.ended);
    else this.closeListeners.push(listener);
  }

  /** One whole message from the channel. */
  receive(message: RpcMessage): void {
    if (this.ended) return;
    if (typeof message.method === "string") {
      // A notification (no id) asks nothing back: `$/cancelRequest` from the previous version's link included.
      if (message.id === undefined || message.id === null) return;
      if (!this.handler && this.onRequest) return this.onRequest(message.method);
      void this.answer(message.id, message.method, message.params);
      return;
    }
    if (typeof message.id !== "number") return; // a reply to nothing this end asked
    const waiting = this.waiting.get(message.id);
    if (!waiting) return; // timed out already
    this.waiting.delete(message.id);
    clearTimeout(waiting.timer);
    const error = message.error;
    if (error) {
      const code = typeof error.code === "number" ? error.code : RpcCodes.InternalError;
      const words = typeof error.message === "string" ? error.message : "The other end refused the request.";
      waiting.reject(new RpcReplyError(code, words, error.data));
    } else {
      waiting.resolve(message.result);
    }
  }

  /** The channel closed: every request still waiting is refused with `why`, and so is every later one. */
  end(why: Error): void {
    if (this.ended) return;
    this.ended = why;
    for (const waiting of this.waiting.values()) {
      clearTimeout(waiting.timer);
      waiting.reject(why);
    }
    this.waiting.clear();
    for (const listener of this.closeListeners.splice(0)) listener(why);
  }

  /** Ends the connection and its channel; a request still waiting is refused. */
  dispose(): void {
    this.end(new Error("The connection was disposed."));
    this.channel.close();
  }

  private async answer(id: number | string, method: string, params: unknown): Promise<void> {
    let reply: RpcMessage;
    try {
      if (!this.handler) throw new RpcReplyError(RpcCodes.MethodNotFound, `Unhandled method ${method}`);
      reply = { jsonrpc: "2.0", id, result: (await this.handler(method, params)) ?? null };
    } catch (error) {
      const refusal =
        error instanceof RpcReplyError
          ? error
          : new RpcReplyError(RpcCodes.InternalError, error instanceof Error ? error.message : String(error));
      const body = { code: refusal.code, message: refusal.message };
      reply = { jsonrpc: "2.0", id, error: refusal.data === undefined ? body : { ...body, data: refusal.data } };
    }
    if (this.ended) return;
    try {
      this.channel.send(reply);
    } catch (error) {
      // An answer that cannot be encoded (a host's reply nested too deep for JSON.stringify) is an
      // error reply, never silence: the asker would wait for it for ever.
      const message = `The answer to ${method} could not be sent: ${error instanceof Error ? error.message : String(error)}`;
      try {
        this.channel.send({ jsonrpc: "2.0", id, error: { code: RpcCodes.InternalError, message } });
      } catch {
        // The channel itself is gone: its close ends the other side's wait.
      }
    }
  }
}
