import fs from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import rpc from "vscode-jsonrpc/node.js";
import { CompanionClient } from "../../../../src/core/protocol/client.js";
import { isOffrunError } from "../../../../src/core/foundation/errors.js";

// Replies are typed at the boundary as requests are: a companion that answers in another shape
// (another version of Offrun, say) gives the face an Offrun error naming the method. The Raycast
// side used to throw a raw ZodError here.

let dir: string;
let server: net.Server;
const socket = () => path.join(dir, "c.sock");

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "offrun-replies-"));
  server = net.createServer((s) => {
    const connection = rpc.createMessageConnection(new rpc.SocketMessageReader(s), new rpc.SocketMessageWriter(s));
    connection.onRequest("ping", () => ({ pid: "not a number", version: "0.0.1" }));
    connection.onRequest("agent.stop", () => ({ name: "fix-upload" }));
    connection.listen();
  });
  await new Promise<void>((resolve) => server.listen(socket(), resolve));
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await fs.rm(dir, { recursive: true, force: true });
});

test("a reply of the wrong shape is an Offrun error that names the method and the field", async () => {
  const client = await CompanionClient.connect(socket());
  try {
    const error: unknown = await client.ping().catch((e: unknown) => e);
    expect(isOffrunError(error, "unreadable_output")).toBe(true);
    expect((error as Error).message).toMatch(/answered ping with something unexpected at pid/);
    const stopped: unknown = await client.call("agent.stop", { project: dir, name: "x" }).catch((e: unknown) => e);
    expect(isOffrunError(stopped, "unreadable_output")).toBe(true);
    expect((stopped as Error).message).toContain("agent.stop");
  } finally {
    client.close();
  }
});
