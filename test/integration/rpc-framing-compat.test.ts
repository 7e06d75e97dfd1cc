import fs from "node:fs/promises";
import net from "node:net";
import { PassThrough } from "node:stream";
import rpc from "vscode-jsonrpc/node.js";
import { Supervisor } from "../../src/core/agents/supervisor.js";
import { serveCompanion, type CompanionServer } from "../../src/core/companion/server.js";
import { isOffrunError } from "../../src/core/foundation/errors.js";
import { userPaths } from "../../src/core/foundation/paths.js";
import { CompanionClient } from "../../src/core/protocol/client.js";
import { RPC_OFFRUN_ERROR } from "../../src/core/protocol/protocol.js";
import { MAX_REQUEST_BYTES } from "../../src/core/protocol/rpc-framing.js";
import { bridgeStdio } from "../../src/core/remote/bridge.js";
import { makeSandbox, useSandboxInProcess, type Sandbox } from "../helpers/offrun.js";
import { startOldCompanionServer } from "../helpers/old-companion-server.js";
import { RpcReplyError, SocketRpc } from "../helpers/old-socket-rpc.js";

// One JSON message per line on the companion's socket, and the previous version (Content-Length
// frames, vscode-jsonrpc on the companion) still understood both ways: a face of it against this
// companion, this face and this `companion stdio` against a companion of it still running.

const raw = () =>
  new Promise<net.Socket>((resolve, reject) => {
    const socket = net.connect(userPaths().socket, () => resolve(socket));
    socket.once("error", reject);
  });
/** Whether `socket` is closed by the other end within `ms`. */
const closedWithin = (socket: net.Socket, ms: number) =>
  new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    socket.once("close", () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
const oneLine = (stream: NodeJS.ReadableStream) =>
  new Promise<string>((resolve) => {
    let text = "";
    const onData = (chunk: Buffer | string) => {
      text += chunk.toString();
      if (!text.includes("\n")) return;
      stream.off("data", onData);
      resolve(text);
    };
    stream.on("data", onData);
  });

describe("this companion", () => {
  let box: Sandbox;
  let companion: CompanionServer;
  const log: string[] = [];
  beforeAll(async () => {
    box = await makeSandbox("offrun-rpcf-");
    useSandboxInProcess(box);
    companion = await serveCompanion({
      supervisor: new Supervisor(box.env),
      version: "9.9.9",
      log: (l) => log.push(l),
    });
  });
  afterAll(async () => {
    await companion.close();
    await box.cleanup();
  });

  test("answers a face of the previous version in its framing, errors and their kind included", async () => {
    const old = new SocketRpc(await raw());
    try {
      expect(await old.request("ping", {})).toMatchObject({ pid: process.pid, version: "9.9.9" });
      const refused = (await old
        .request("agent.stop", { project: box.dir, name: "nobody" })
        .catch((e) => e)) as RpcReplyError;
      expect(refused).toBeInstanceOf(RpcReplyError);
      expect(refused.code).toBe(RPC_OFFRUN_ERROR);
      expect(refused.data).toEqual({ kind: "invalid_input" });
      const invalid = (await old.request("agent.stop", { name: 3 }).catch((e) => e)) as RpcReplyError;
      expect(invalid.code).toBe(-32602);
    } finally {
      old.dispose();
    }
  });

  test("speaks a line per message to this version's faces, and answers their probe first", async () => {
    // Failed before: the companion read Content-Length frames only and closed on the probe.
    const socket = await raw();
    const reply = oneLine(socket);
    socket.write('\r\n\r\n{"jsonrpc":"2.0","id":7,"method":"ping","params":{}}\n');
    const [ack, line] = [(await reply).slice(0, 1), (await reply).slice(1)];
    expect(ack).toBe("\n");
    const more = line.endsWith("\n") ? line : line + (await oneLine(socket));
    expect(JSON.parse(more)).toMatchObject({ jsonrpc: "2.0", id: 7, result: { pid: process.pid } });
    socket.destroy();
  });

  test("a line that is not JSON loses its own connection and no other", async () => {
    // Failed before: vscode-jsonrpc waited for a header on such a line and held the connection open.
    const client = await CompanionClient.connect();
    const garbage = await raw();
    try {
      const closed = closedWithin(garbage, 5_000);
      garbage.write("hello companion\n");
      expect(await closed).toBe(true);
      expect((await client.ping()).pid).toBe(process.pid);
      expect(log.some((l) => l.includes("not a JSON-RPC line: hello companion"))).toBe(true);
    } finally {
      client.close();
      garbage.destroy();
    }
  });

  test("a line longer than any request is not held: its connection is closed", async () => {
    // Failed before: vscode-jsonrpc buffered whatever came until a header ended.
    const client = await CompanionClient.connect();
    const flood = await raw();
    try {
      const closed = closedWithin(flood, 20_000);
      flood.on("error", () => undefined);
      flood.write('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"');
      const mb = Buffer.alloc(1024 * 1024, "x");
      for (let sent = 0; sent <= MAX_REQUEST_BYTES && !flood.destroyed; sent += mb.length) {
        if (!flood.write(mb)) await new Promise((resolve) => flood.once("drain", resolve).once("close", resolve));
      }
      expect(await closed).toBe(true);
      expect((await client.ping()).pid).toBe(process.pid);
      expect(log.some((l) => l.includes("more than any message"))).toBe(true);
    } finally {
      client.close();
      flood.destroy();
    }
  }, 60_000);
});

describe("a companion of the previous version, still running", () => {
  let box: Sandbox;
  let old: Awaited<ReturnType<typeof startOldCompanionServer>>;
  beforeAll(async () => {
    box = await makeSandbox("offrun-rpcf-old-");
    useSandboxInProcess(box);
    await fs.mkdir(userPaths().run, { recursive: true, mode: 0o700 });
    old = await startOldCompanionServer(userPaths().socket, {
      ping: () => ({ pid: 4242, version: "0.0.9", startedAt: new Date().toISOString(), running: 0 }),
      hello: () => ({ protocol: 1, version: "0.0.9", hostname: "old" }),
      "agent.stop": () => {
        throw new rpc.ResponseError(RPC_OFFRUN_ERROR, "No agent nobody here.", { kind: "not_found" });
      },
    });
  });
  afterAll(async () => {
    await old.close();
    await box.cleanup();
  });

  test("is spoken to in its framing by this face, its errors' kinds kept", async () => {
    const client = await CompanionClient.connect();
    try {
      expect((await client.ping()).pid).toBe(4242);
      const refused = await client.call("agent.stop", { project: box.dir, name: "nobody" }).catch((e: unknown) => e);
      expect(isOffrunError(refused, "not_found")).toBe(true);
    } finally {
      client.close();
    }
  });

  test("that neither answers the probe nor closes is asked in its framing after a second", async () => {
    // A vscode-jsonrpc server without the companion's error handler keeps a connection it cannot read open.
    const socketPath = `${userPaths().socket}.silent`;
    const silent = net.createServer((s) => {
      const connection = rpc.createMessageConnection(new rpc.SocketMessageReader(s), new rpc.SocketMessageWriter(s));
      connection.onRequest("ping", () => ({ pid: 99, version: "0.0.9", startedAt: "x", running: 0 }));
      connection.listen();
      s.on("error", () => undefined);
    });
    await new Promise<void>((resolve) => silent.listen(socketPath, resolve));
    const client = await CompanionClient.connect(socketPath);
    try {
      expect((await client.ping()).pid).toBe(99);
    } finally {
      client.close();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  test("is joined to ssh's lines by this version's `companion stdio`", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const bridged = bridgeStdio(input, output, () => undefined);
    const reply = oneLine(output);
    input.write('{"jsonrpc":"2.0","id":1,"method":"hello","params":{"protocol":1,"version":"x"}}\n');
    expect(JSON.parse(await reply)).toEqual({
      jsonrpc: "2.0",
      id: 1,
      result: { protocol: 1, version: "0.0.9", hostname: "old" },
    });
    input.end();
    await bridged;
  });
});
