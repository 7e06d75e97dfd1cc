import net from "node:net";
import os from "node:os";
import path from "node:path";
import fs from "node:fs/promises";
import { RpcReplyError, SocketRpc } from "../../../../src/core/protocol/socket-rpc.js";

// The faces' JSON-RPC client (core/protocol/socket-rpc.ts) against a server that writes the
// companion's framing by hand, in the pieces a socket may deliver it in.

let dir: string;
let server: net.Server;
const sockets = new Set<net.Socket>();
let onRequest: (socket: net.Socket, request: { id: number; method: string; params: unknown }) => void;

const frame = (message: unknown) => {
  const body = Buffer.from(JSON.stringify(message), "utf8");
  return Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]);
};

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "offrun-rpc-"));
  server = net.createServer((socket) => {
    sockets.add(socket);
    let buffered = "";
    socket.on("data", (chunk) => {
      buffered += chunk.toString("utf8");
      for (;;) {
        const end = buffered.indexOf("\r\n\r\n");
        if (end === -1) return;
        const length = Number(/Content-Length: (\d+)/.exec(buffered.slice(0, end))![1]);
        if (Buffer.byteLength(buffered.slice(end + 4)) < length) return;
        const body = Buffer.from(buffered.slice(end + 4))
          .subarray(0, length)
          .toString("utf8");
        buffered = Buffer.from(buffered.slice(end + 4))
          .subarray(length)
          .toString("utf8");
        onRequest(socket, JSON.parse(body) as { id: number; method: string; params: unknown });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(path.join(dir, "s.sock"), resolve));
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
  await fs.rm(dir, { recursive: true, force: true });
});

const connect = () =>
  new Promise<SocketRpc>((resolve, reject) => {
    const socket = net.connect(path.join(dir, "s.sock"), () => resolve(new SocketRpc(socket)));
    socket.once("error", reject);
  });

test("replies split anywhere, a character of several bytes included, reach the request they answer", async () => {
  // One byte at a time, one reply after the other: through the header, the blank line and the middle of "·".
  let writing = Promise.resolve();
  onRequest = (socket, request) => {
    const bytes = frame({ jsonrpc: "2.0", id: request.id, result: { echo: request.params, text: "limit · 21:00 ✓" } });
    writing = writing.then(async () => {
      for (let at = 0; at < bytes.length; at++) {
        socket.write(bytes.subarray(at, at + 1));
        await new Promise((resolve) => setImmediate(resolve));
      }
    });
  };
  const rpc = await connect();
  try {
    const [a, b] = await Promise.all([rpc.request("one", { n: 1 }), rpc.request("two", { n: 2 })]);
    expect(a).toEqual({ echo: { n: 1 }, text: "limit · 21:00 ✓" });
    expect(b).toEqual({ echo: { n: 2 }, text: "limit · 21:00 ✓" });
  } finally {
    rpc.dispose();
  }
});

test("two replies in one chunk, answered out of order", async () => {
  const held: { socket: net.Socket; id: number }[] = [];
  onRequest = (socket, request) => {
    held.push({ socket, id: request.id });
    if (held.length < 2) return;
    socket.write(Buffer.concat(held.reverse().map((h) => frame({ jsonrpc: "2.0", id: h.id, result: h.id }))));
  };
  const rpc = await connect();
  try {
    expect(await Promise.all([rpc.request("a", {}), rpc.request("b", {})])).toEqual([1, 2]);
  } finally {
    rpc.dispose();
  }
});

test("an error reply keeps its code, words and data", async () => {
  onRequest = (socket, request) =>
    socket.write(
      frame({
        jsonrpc: "2.0",
        id: request.id,
        error: { code: -32001, message: "no agent", data: { kind: "not_found" } },
      }),
    );
  const rpc = await connect();
  try {
    const error = (await rpc.request("agent.show", {}).catch((e: unknown) => e)) as RpcReplyError;
    expect(error).toBeInstanceOf(RpcReplyError);
    expect({ code: error.code, message: error.message, data: error.data }).toEqual({
      code: -32001,
      message: "no agent",
      data: { kind: "not_found" },
    });
  } finally {
    rpc.dispose();
  }
});

test("a connection that closes, or sends a broken header, refuses what waits and what comes after", async () => {
  onRequest = (socket) => socket.destroy();
  const closing = await connect();
  await expect(closing.request("ping", {})).rejects.toThrow("The connection was closed");
  await expect(closing.request("ping", {})).rejects.toThrow("The connection was closed");

  onRequest = (socket) => socket.write("Content-Length: lots\r\n\r\n{}");
  const broken = await connect();
  await expect(broken.request("ping", {})).rejects.toThrow("without a valid Content-Length");
});
