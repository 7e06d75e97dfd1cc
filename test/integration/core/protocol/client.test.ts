import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { CompanionClient } from "../../../../src/core/protocol/client.js";
import { isOffrunError } from "../../../../src/core/foundation/errors.js";
import { startOldCompanionServer } from "../../../helpers/old-companion-server.js";

// Replies are typed at the boundary as requests are: a companion that answers in another shape
// (another version of Offrun, say) gives the face an Offrun error naming the method. The Raycast
// side used to throw a raw ZodError here.

let dir: string;
let server: Awaited<ReturnType<typeof startOldCompanionServer>>;
const socket = () => path.join(dir, "c.sock");

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "offrun-replies-"));
  // A companion of the previous version (Content-Length frames), which replied in other shapes.
  server = await startOldCompanionServer(socket(), {
    ping: () => ({ pid: "not a number", version: "0.0.1" }),
    "agent.stop": () => ({ name: "fix-upload" }),
  });
});

afterAll(async () => {
  await server.close();
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
