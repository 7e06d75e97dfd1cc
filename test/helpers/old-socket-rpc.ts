// The faces' client as it was before the framing became one JSON message per line: main's
// src/core/protocol/socket-rpc.ts at 2e4995f, copied unchanged below this comment. It stands for
// an `offrun` or a Raycast extension of the previous version. Test-only.

import type net from "node:net";

/**
 * The client half of JSON-RPC 2.0 on the companion's socket, framed as the companion's
 * vscode-jsonrpc server frames it (a `Content-Length` header, a blank line, the JSON). A face
 * only sends requests and reads their replies, and this is all of that: every `offrun` command
 * that asks the companion something starts without loading vscode-jsonrpc, which with the parts
 * of Node it brings took longer than the rest of `offrun ls` on a slow machine. The companion,
 * which serves many clients and its hosts, keeps the library.
 */

/** An error reply: the companion's own words, with its kind in `data`. */
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

interface Waiting {
  resolve: (result: unknown) => void;
  reject: (error: Error) => void;
}

const HEADER_END = Buffer.from("\r\n\r\n");
/** A reply bigger than this is a broken stream, not an answer (a diff is sent as a file's worth). */
const MAX_MESSAGE_BYTES = 256 * 1024 * 1024;

export class SocketRpc {
  private nextId = 1;
  private readonly waiting = new Map<number, Waiting>();
  private buffered: Buffer = Buffer.alloc(0);
  private ended?: Error;

  constructor(private readonly socket: net.Socket) {
    socket.on("data", (chunk: Buffer) => this.receive(chunk));
    socket.on("error", (error) => this.end(new Error(`The connection was closed: ${error.message}`)));
    socket.on("close", () => this.end(new Error("The connection was closed.")));
  }

  request(method: string, params: unknown): Promise<unknown> {
    if (this.ended) return Promise.reject(this.ended);
    const id = this.nextId++;
    const body = Buffer.from(JSON.stringify({ jsonrpc: "2.0", id, method, params }), "utf8");
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.socket.write(Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, "ascii"), body]));
    });
  }

  /** Ends the connection; a request still waiting is refused. */
  dispose(): void {
    this.end(new Error("The connection was disposed."));
    this.socket.destroy();
  }

  private receive(chunk: Buffer): void {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    for (;;) {
      const headerEnd = this.buffered.indexOf(HEADER_END);
      if (headerEnd === -1) return;
      const header = this.buffered.subarray(0, headerEnd).toString("ascii");
      const length = Number(/^content-length:\s*(\d+)\s*$/im.exec(header)?.[1]);
      if (!Number.isSafeInteger(length) || length > MAX_MESSAGE_BYTES) {
        this.end(new Error(`The companion sent a message without a valid Content-Length: ${header.slice(0, 200)}`));
        this.socket.destroy();
        return;
      }
      const start = headerEnd + HEADER_END.length;
      if (this.buffered.length < start + length) return;
      const body = this.buffered.subarray(start, start + length).toString("utf8");
      this.buffered = this.buffered.subarray(start + length);
      this.dispatch(body);
    }
  }

  private dispatch(body: string): void {
    let message: { id?: unknown; result?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } };
    try {
      message = JSON.parse(body) as typeof message;
    } catch {
      return; // not a reply this client can match to a request
    }
    if (typeof message.id !== "number") return; // a notification: none is asked for
    const waiting = this.waiting.get(message.id);
    if (!waiting) return;
    this.waiting.delete(message.id);
    const error = message.error;
    if (error) {
      const code = typeof error.code === "number" ? error.code : -32603;
      waiting.reject(
        new RpcReplyError(code, String(error.message ?? "The companion refused the request."), error.data),
      );
    } else {
      waiting.resolve(message.result);
    }
  }

  private end(why: Error): void {
    if (this.ended) return;
    this.ended = why;
    for (const waiting of this.waiting.values()) waiting.reject(why);
    this.waiting.clear();
  }
}
