import net from "node:net";
import os from "node:os";
import path from "node:path";
import fs from "node:fs/promises";
import { RpcReplyError, type RpcConnection } from "../../../../src/core/protocol/rpc-connection.js";
import { type Framing } from "../../../../src/core/protocol/rpc-framing.js";
import { socketConnection } from "../../../../src/core/protocol/rpc-socket.js";

// The one JSON-RPC connection (core/protocol/rpc-connection.ts) on a socket, in both framings it
// reads (a line per message, and the previous version's Content-Length), against a server that
// writes the framing by hand, in the pieces a socket may deliver it in.

let dir: string;
let server: net.Server;
const sockets = new Set<net.Socket>();
type Request = { id: number; method: string; params: unknown };
let onRequest: (socket: net.Socket, request: Request) => void;
let framing: Framing;

const frame = (message: unknown) => {
  const body = Buffer.from(JSON.stringify(message), "utf8");
  if (framing === "lines") return Buffer.concat([body, Buffer.from("\n")]);
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
        if (framing === "lines") {
          const end = buffered.indexOf("\n");
          if (end === -1) return;
          const line = buffered.slice(0, end);
          buffered = buffered.slice(end + 1);
          onRequest(socket, JSON.parse(line) as Request);
          continue;
        }
        const end = buffered.indexOf("\r\n\r\n");
        if (end === -1) return;
        const length = Number(/Content-Length: (\d+)/.exec(buffered.slice(0, end))![1]);
        if (Buffer.byteLength(buffered.slice(end + 4)) < length) return;
        const rest = Buffer.from(buffered.slice(end + 4));
        buffered = rest.subarray(length).toString("utf8");
        onRequest(socket, JSON.parse(rest.subarray(0, length).toString("utf8")) as Request);
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

const connect = (maxBytes = 1024 * 1024) =>
  new Promise<RpcConnection>((resolve, reject) => {
    const socket = net.connect(path.join(dir, "s.sock"), () =>
      resolve(socketConnection(socket, framing, { maxBytes })),
    );
    socket.once("error", reject);
  });

describe.each<Framing>(["lines", "content-length"])("in %s", (f) => {
  beforeEach(() => (framing = f));

  test("replies split anywhere, a character of several bytes included, reach the request they answer", async () => {
    // One byte at a time, one reply after the other: through the framing and the middle of "·".
    let writing = Promise.resolve();
    onRequest = (socket, request) => {
      const bytes = frame({
        jsonrpc: "2.0",
        id: request.id,
        result: { echo: request.params, text: "limit · 21:00 ✓" },
      });
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

  test("a connection that closes refuses what waits and what comes after", async () => {
    onRequest = (socket) => socket.destroy();
    const closing = await connect();
    await expect(closing.request("ping", {})).rejects.toThrow("The connection was closed");
    await expect(closing.request("ping", {})).rejects.toThrow("The connection was closed");
  });

  test("a reply that is not a message, or longer than the bound, ends the connection", async () => {
    onRequest = (socket) =>
      socket.write(framing === "lines" ? "Content-Length: lots\n" : "Content-Length: lots\r\n\r\n{}");
    const broken = await connect();
    await expect(broken.request("ping", {})).rejects.toThrow(
      /the other end sent (not a JSON-RPC line|a message without)/,
    );

    onRequest = (socket, request) => socket.write(frame({ jsonrpc: "2.0", id: request.id, result: "x".repeat(2_000) }));
    const long = await connect(1_000);
    await expect(long.request("ping", {})).rejects.toThrow(/more than any message/);
  });

  test("a request without a reply in time is refused, and its late reply goes nowhere", async () => {
    const held: { socket: net.Socket; id: number; method: string }[] = [];
    onRequest = (socket, request) => {
      if (request.method === "slow") held.push({ socket, ...request });
      else socket.write(frame({ jsonrpc: "2.0", id: request.id, result: "quick" }));
    };
    const rpc = await connect();
    try {
      await expect(
        rpc.request("slow", {}, { timeoutMs: 50, onTimeout: () => new Error("slow did not answer") }),
      ).rejects.toThrow("slow did not answer");
      held[0]!.socket.write(frame({ jsonrpc: "2.0", id: held[0]!.id, result: "late" }));
      expect(await rpc.request("quick", {})).toBe("quick");
    } finally {
      rpc.dispose();
    }
  });
});

test("an end that serves answers with its result, its refusal's code and data; one that does not, with an unknown method", async () => {
  const pairPath = path.join(dir, "pair.sock");
  const pair = net.createServer();
  await new Promise<void>((resolve) => pair.listen(pairPath, resolve));
  const accepted = new Promise<net.Socket>((resolve) => pair.once("connection", resolve));
  const b = net.connect(pairPath);
  const a = await accepted;
  const server = socketConnection(a, "lines", {
    maxBytes: 1024,
    handler: async (method, params) => {
      if (method === "echo") return params;
      if (method === "refuse") throw new RpcReplyError(-32001, "no such agent", { kind: "not_found" });
      throw new Error("it broke");
    },
  });
  const asker = socketConnection(b, "lines", { maxBytes: 1024 });
  try {
    expect(await asker.request("echo", { n: 1 })).toEqual({ n: 1 });
    const refused = (await asker.request("refuse", {}).catch((e: unknown) => e)) as RpcReplyError;
    expect([refused.code, refused.message, refused.data]).toEqual([-32001, "no such agent", { kind: "not_found" }]);
    const broke = (await asker.request("other", {}).catch((e: unknown) => e)) as RpcReplyError;
    expect([broke.code, broke.message]).toEqual([-32603, "it broke"]);
    const unknown = (await server.request("ping", {}).catch((e: unknown) => e)) as RpcReplyError;
    expect([unknown.code, unknown.message]).toEqual([-32601, "Unhandled method ping"]);
  } finally {
    asker.dispose();
    server.dispose();
    await new Promise((resolve) => pair.close(resolve));
  }
});
