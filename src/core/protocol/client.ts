import fs from "node:fs/promises";
import { OffrunError, type ErrorKind, ERROR_KINDS } from "../foundation/errors.js";
import { userPaths } from "../foundation/paths.js";
import { PRIVATE_DIR_MODE } from "../foundation/private-files.js";
import type { Command } from "../foundation/process.js";
import type { MethodName, MethodParams, PingResult, Reply } from "./protocol.js";
import { offrunErrorData, RPC_OFFRUN_ERROR, RpcReplyError, type RpcConnection } from "./rpc-connection.js";
import { connectCompanionRpc } from "./rpc-socket.js";

const START_TIMEOUT_MS = 10_000;
/** What the companion gives a host to answer a forwarded request when the face names no time (remote/link.ts). */
const HOST_CALL_MS = 30_000;
/** Beyond the host's time: the companion's own part, an SSH connection being made included. */
const HOST_CALL_MARGIN_MS = 25_000;

/**
 * The reply schemas, loaded once the first request is on its way: building them is the longest
 * module set-up of a command's start, and the companion's answer takes longer to come.
 */
type Protocol = typeof import("./protocol.js");
let protocolModule: Promise<Protocol> | undefined;
const protocol = () => (protocolModule ??= import("./protocol.js"));

/** One JSON-RPC connection to the companion. */
export class CompanionClient {
  private constructor(private readonly connection: RpcConnection) {}

  /**
   * Connects, or throws companion_unavailable when nothing listens. A companion of the previous
   * version, still running, is spoken to in its framing (rpc-socket.ts).
   */
  static async connect(socketPath = userPaths().socket): Promise<CompanionClient> {
    return new CompanionClient(await connectCompanionRpc(socketPath));
  }

  /**
   * Sends one request and parses the reply with its schema in protocol.ts: a reply of another
   * shape (a companion of another version, say) is an Offrun error that names the method.
   */
  async call<M extends MethodName>(
    method: M,
    params: MethodParams<M>,
    options: { timeoutMs?: number } = {},
  ): Promise<Reply<M>> {
    const request = this.connection.request(method, params, {
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      onTimeout: () =>
        new OffrunError(
          "timed_out",
          `The companion did not answer ${method} within ${(options.timeoutMs ?? 0) / 1000} s.`,
        ),
    });
    const schemas = protocol();
    let result: unknown;
    try {
      result = await request;
    } catch (error) {
      throw toOffrunError(error);
    }
    return parseReply(await schemas, method, result);
  }

  /**
   * The same requests, sent on by this machine's companion to the companion of `host` over its
   * SSH connection (core/remote); `timeoutMs` bounds the host's answer.
   */
  on(host: string, timeoutMs?: number): Caller {
    return {
      call: async (method, params) => {
        // Sent first: the schemas are built while the host answers (call() loads them).
        // The companion gives the host `timeoutMs` (30 s unless said): a reply that never comes back
        // from the companion either (a host's answer it cannot forward) ends this wait too.
        const result = await this.call(
          "host.call",
          { host, method, params, ...(timeoutMs ? { timeoutMs } : {}) },
          { timeoutMs: (timeoutMs ?? HOST_CALL_MS) + HOST_CALL_MARGIN_MS },
        );
        return parseReply(await protocol(), method, result);
      },
    };
  }

  ping(): Promise<PingResult> {
    return this.call("ping", {});
  }

  close(): void {
    this.connection.dispose();
  }
}

/** Anything requests can be sent to: this machine's companion, or a host's through it. */
export interface Caller {
  call<M extends MethodName>(method: M, params: MethodParams<M>): Promise<Reply<M>>;
}

function parseReply<M extends MethodName>({ replies }: Protocol, method: M, result: unknown): Reply<M> {
  const parsed = replies[method].safeParse(result);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? ` at ${issue.path.join(".")}` : "";
    throw new OffrunError(
      "unreadable_output",
      `The companion answered ${method} with something unexpected${where}: ${issue?.message ?? "invalid"}. If it is another version of Offrun, run \`offrun companion stop\` and try again.`,
      { cause: parsed.error },
    );
  }
  return parsed.data as Reply<M>;
}

/** An error reply, as the companion's or a host's connection gives it (RpcReplyError). */
export interface ResponseErrorLike {
  code: number;
  message: string;
  data?: unknown;
}

/** A companion's error reply as an Offrun error of the kind it carried; `from` names another machine's. */
export function fromResponseError(error: ResponseErrorLike, from?: string): OffrunError {
  const message = from ? `${from}: ${error.message}` : error.message;
  const data = offrunErrorData(error.data);
  const kind =
    data && (ERROR_KINDS as readonly string[]).includes(data.kind) ? (data.kind as ErrorKind) : "process_failed";
  if (error.code === RPC_OFFRUN_ERROR || data) return new OffrunError(kind, message);
  return new OffrunError("invalid_input", message);
}

function toOffrunError(error: unknown): Error {
  if (error instanceof RpcReplyError) return fromResponseError(error);
  if (error instanceof Error && /closed|disposed/i.test(error.message)) {
    return new OffrunError(
      "companion_unavailable",
      "The companion closed the connection (it may have been stopped or crashed). Run the command again; it restarts the companion.",
      { cause: error },
    );
  }
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * Connects to the companion, starting it detached first when it is not running.
 * `launch` is how this face starts `offrun companion run` (the CLI passes its own entry point).
 */
export async function ensureCompanion(launch: Command): Promise<CompanionClient> {
  try {
    return await CompanionClient.connect();
  } catch (error) {
    if (!(error instanceof OffrunError) || error.kind !== "companion_unavailable") throw error;
  }
  await startCompanionDetached(launch);
  const deadline = Date.now() + START_TIMEOUT_MS;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      return await CompanionClient.connect();
    } catch (error) {
      lastError = error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  throw new OffrunError(
    "companion_unavailable",
    `The companion did not start within ${START_TIMEOUT_MS / 1000} s. See ${userPaths().companionLog}, or run \`offrun companion run\` to see the error.`,
    { cause: lastError },
  );
}

export async function startCompanionDetached(launch: Command): Promise<void> {
  const paths = userPaths();
  await fs.mkdir(paths.home, { recursive: true, mode: PRIVATE_DIR_MODE });
  // Loaded here: only a start that finds no companion spawns one.
  const { spawnDetached } = await import("../foundation/process.js");
  await spawnDetached({ ...launch, cwd: launch.cwd ?? paths.home });
}
