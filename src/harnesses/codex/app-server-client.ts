import * as z from "zod";
import type { LiveProcess } from "../types.js";

/**
 * The one client of `codex app-server`: JSON-RPC 2.0 with one JSON object per line on stdio
 * (shapes from `codex app-server generate-ts` of 0.171.0). Live turns and the quota probe both
 * speak through it, over a process the caller spawned through the core's runner (so the probe has
 * the same timeout, process group and kill as a turn). Not vscode-jsonrpc: the app-server frames
 * messages by newline, not by Content-Length headers.
 */

/** The command line the app-server needs besides the binary. */
export const APP_SERVER_ARGS = ["app-server"] as const;

const messageSchema = z.looseObject({
  id: z.union([z.number(), z.string()]).optional(),
  method: z.string().optional(),
  params: z.unknown().optional(),
  result: z.unknown().optional(),
  error: z.looseObject({ code: z.number().optional(), message: z.string() }).optional(),
});

/** A request of ours that the server refused, with its JSON-RPC error. */
export class AppServerError extends Error {
  constructor(
    readonly method: string,
    message: string,
  ) {
    super(message);
  }
}

export interface AppServerHandlers {
  /** A notification (no id): turn/started, item/completed, account/rateLimits/updated, ... */
  onNotification?(method: string, params: unknown): void;
  /** A request of the server's (approvals, questions); the handler answers with `reply` or `refuse`. */
  onRequest?(id: number | string, method: string, params: unknown): void;
}

export class AppServerClient {
  private nextId = 1;
  private readonly calls = new Map<number, { method: string; resolve(v: unknown): void; reject(e: Error): void }>();
  /** Resolves when stdout has ended: every call still waiting has been failed by then. */
  readonly closed: Promise<void>;

  constructor(
    private readonly child: LiveProcess,
    private readonly handlers: AppServerHandlers = {},
  ) {
    this.closed = this.read();
  }

  /** `initialize` then `initialized`: what the server needs before any other call. */
  async initialize(): Promise<void> {
    await this.call("initialize", { clientInfo: { name: "offrun", title: null, version: "1" }, capabilities: null });
    this.notify("initialized");
  }

  call(method: string, params: unknown): Promise<unknown> {
    const id = this.nextId++;
    const answered = new Promise<unknown>((resolve, reject) => this.calls.set(id, { method, resolve, reject }));
    this.send({ id, method, params });
    return answered;
  }

  notify(method: string, params?: unknown): void {
    this.send(params === undefined ? { method } : { method, params });
  }

  reply(id: number | string, result: unknown): void {
    this.send({ id, result });
  }

  refuse(id: number | string, message: string): void {
    this.send({ id, error: { code: -32601, message } });
  }

  /** Ends stdin: the app-server exits at EOF. */
  end(): void {
    if (!this.child.stdin.writableEnded) this.child.stdin.end();
  }

  private send(message: Record<string, unknown>): void {
    if (!this.child.stdin.writableEnded) this.child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
  }

  private async read(): Promise<void> {
    for await (const chunk of this.child.stdout) {
      let json: unknown;
      try {
        json = JSON.parse(String(chunk));
      } catch {
        continue; // not a protocol line
      }
      const message = messageSchema.safeParse(json);
      if (message.success) this.dispatch(message.data);
    }
    for (const call of this.calls.values()) {
      call.reject(new AppServerError(call.method, "codex app-server ended before answering."));
    }
    this.calls.clear();
  }

  private dispatch(message: z.infer<typeof messageSchema>): void {
    if (message.method === undefined && typeof message.id === "number") {
      const call = this.calls.get(message.id);
      this.calls.delete(message.id);
      if (!call) return;
      if (message.error) call.reject(new AppServerError(call.method, message.error.message));
      else call.resolve(message.result);
    } else if (message.method !== undefined && message.id !== undefined) {
      if (this.handlers.onRequest) this.handlers.onRequest(message.id, message.method, message.params);
      else this.refuse(message.id, `Offrun does not handle ${message.method}.`);
    } else if (message.method !== undefined) {
      this.handlers.onNotification?.(message.method, message.params);
    }
  }
}
