import { createHash } from "node:crypto";
import net from "node:net";
import { OffrunError } from "./errors.js";

export interface PortRequest {
  root: string;
  agent: string;
  range: { from: number; to: number };
  /** Ports other agents hold. The chosen port is added to it, so concurrent callers sharing the set never pick the same one. */
  taken: Set<number>;
}

/**
 * A stable dev-server port for an agent's worktree: a hash of project and agent picks the
 * start, then a linear probe skips ports that are taken or busy right now. The same inputs
 * give the same port whenever it is free, so bookmarks keep working across restarts.
 */
export async function allocatePort(request: PortRequest): Promise<number> {
  const { from, to } = request.range;
  if (!Number.isInteger(from) || !Number.isInteger(to) || from > to || from < 1 || to > 65535) {
    throw new OffrunError(
      "invalid_input",
      `Port range ${from}-${to} is not valid. Use whole numbers with from <= to, within 1-65535.`,
    );
  }
  const size = to - from + 1;
  const start = preferredOffset(request.root, request.agent, size);
  for (let i = 0; i < size; i++) {
    const port = from + ((start + i) % size);
    if (request.taken.has(port)) continue;
    request.taken.add(port); // reserve before awaiting, against concurrent callers
    if (await isPortFree(port)) return port;
    request.taken.delete(port);
  }
  throw new OffrunError(
    "invalid_input",
    `No free port in ${from}-${to}. Stop some dev servers or widen portRange in .offrun/config.json.`,
  );
}

function preferredOffset(root: string, agent: string, size: number): number {
  const digest = createHash("sha256").update(`${root}\0${agent}`).digest();
  return digest.readUInt32BE(0) % size;
}

/** True when nothing listens on 127.0.0.1:port right now. */
export function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once("error", () => resolve(false));
    server.listen({ host: "127.0.0.1", port, exclusive: true }, () => {
      server.close(() => resolve(true));
    });
  });
}
