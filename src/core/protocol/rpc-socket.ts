import net from "node:net";
import { OffrunError } from "../foundation/errors.js";
import { RpcConnection, type RequestHandler } from "./rpc-connection.js";
import {
  FramingError,
  frameMessage,
  frameReader,
  MAX_REPLY_BYTES,
  MAX_REQUEST_BYTES,
  sniffFraming,
  type Framing,
} from "./rpc-framing.js";

/**
 * The companion's Unix socket, both ends, one JSON message per line (rpc-framing.ts), and how a
 * new end still talks to one of the previous version, which framed with Content-Length:
 *
 * - A client opens with FRAMING_PROBE, two blank lines. This companion answers it with one
 *   newline before anything else; a companion of the previous version reads a header block without
 *   Content-Length and closes the connection having read nothing more (vscode-jsonrpc fails the
 *   header and the server dropped the connection), so a close before any byte (or no byte within
 *   a second) says "old": the client connects again and speaks Content-Length, which this
 *   companion reads too. Nothing was asked on the abandoned connection.
 * - The companion looks at a connection's first bytes: `Content-Length:` is a face of the previous
 *   version, answered in its framing; anything else is lines.
 */

export const FRAMING_PROBE = "\r\n\r\n";
const CONNECT_TIMEOUT_MS = 2_000;
const PROBE_TIMEOUT_MS = 1_000;

/** Joins a connected socket to a connection in `framing`; `head` is what was already read from it. */
export function socketConnection(
  socket: net.Socket,
  framing: Framing,
  options: { handler?: RequestHandler; maxBytes: number; head?: Buffer; onBroken?: (error: FramingError) => void },
): RpcConnection {
  const connection = new RpcConnection(
    {
      send: (message) => {
        if (socket.writable) socket.write(frameMessage(message, framing));
      },
      close: () => socket.destroy(),
    },
    options.handler,
  );
  const reader = frameReader(framing, (message) => connection.receive(message), options.maxBytes);
  const read = (chunk: Buffer) => {
    try {
      reader.push(chunk);
    } catch (error) {
      // Only this connection is lost: its other end sent something that is not a message.
      if (!(error instanceof FramingError)) throw error;
      options.onBroken?.(error);
      connection.end(new Error(`The connection was closed: the other end sent ${error.message}`));
      socket.destroy();
    }
  };
  socket.on("data", read);
  socket.on("error", (error) => connection.end(new Error(`The connection was closed: ${error.message}`)));
  socket.on("close", () => connection.end(new Error("The connection was closed.")));
  if (options.head && options.head.length > 0) read(options.head);
  socket.resume();
  return connection;
}

/**
 * The companion's side of one connection: finds its framing from the first bytes, answers the
 * probe, then serves every request with `handler`. A connection that breaks the framing is closed
 * (`onBroken` is told); the others go on.
 */
export function acceptSocket(
  socket: net.Socket,
  handler: RequestHandler,
  onBroken: (error: FramingError) => void,
): void {
  let head: Buffer = Buffer.alloc(0);
  const sniff = (chunk: Buffer) => {
    head = head.length === 0 ? chunk : Buffer.concat([head, chunk]);
    const framing = sniffFraming(head);
    if (!framing) return;
    socket.off("data", sniff);
    if (framing === "lines" && (head[0] === 0x0d || head[0] === 0x0a)) socket.write("\n");
    socketConnection(socket, framing, { handler, maxBytes: MAX_REQUEST_BYTES, head, onBroken });
  };
  socket.on("data", sniff);
}

/**
 * A connection to the companion on `socketPath` in whichever framing it speaks; companion_unavailable
 * when nothing listens. `framing` says which it was (the bridge relays in it).
 */
export async function connectCompanion(
  socketPath: string,
): Promise<{ socket: net.Socket; framing: Framing; head: Buffer }> {
  const socket = await openSocket(socketPath);
  socket.write(FRAMING_PROBE);
  const answer = await new Promise<Buffer | undefined>((resolve) => {
    // A companion that neither answers nor closes (its loop busy, or a server that keeps a broken
    // connection open) is spoken to in Content-Length, which every companion reads.
    const timer = setTimeout(() => done(), PROBE_TIMEOUT_MS);
    const done = (chunk?: Buffer) => {
      clearTimeout(timer);
      socket.pause();
      socket.off("data", done);
      socket.off("close", closed);
      socket.off("error", closed);
      resolve(chunk);
    };
    const closed = () => done();
    socket.on("data", done);
    socket.once("close", closed);
    socket.once("error", closed);
  });
  if (answer === undefined) {
    socket.destroy();
    return { socket: await openSocket(socketPath), framing: "content-length", head: Buffer.alloc(0) };
  }
  if (answer[0] !== 0x0a) {
    socket.destroy();
    throw new OffrunError(
      "unreadable_output",
      `Something on ${socketPath} answered in a way no companion does. Run \`offrun companion stop\` and try again.`,
    );
  }
  // Left paused: socketConnection resumes it once it listens, so no byte goes by unread.
  return { socket, framing: "lines", head: answer.subarray(1) };
}

/** A face's connection to the companion, requests only. */
export async function connectCompanionRpc(socketPath: string): Promise<RpcConnection> {
  const { socket, framing, head } = await connectCompanion(socketPath);
  return socketConnection(socket, framing, { maxBytes: MAX_REPLY_BYTES, head });
}

/** The companion's socket, connected; companion_unavailable when nothing listens. */
export function openSocket(socketPath: string): Promise<net.Socket> {
  return new Promise<net.Socket>((resolve, reject) => {
    const s = net.connect(socketPath);
    const timer = setTimeout(() => {
      s.destroy();
      reject(new OffrunError("companion_unavailable", `The companion did not answer on ${socketPath}.`));
    }, CONNECT_TIMEOUT_MS);
    s.once("connect", () => {
      clearTimeout(timer);
      resolve(s);
    });
    s.once("error", (error) => {
      clearTimeout(timer);
      reject(
        new OffrunError("companion_unavailable", `The companion is not running (${error.message}).`, {
          cause: error,
        }),
      );
    });
  });
}
