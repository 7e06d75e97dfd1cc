import net from "node:net";
import { isOffrunError } from "../../../../src/core/foundation/errors.js";
import { allocatePort, isPortFree } from "../../../../src/core/foundation/ports.js";

const range = { from: 41000, to: 48999 };

function listen(port: number): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen({ host: "127.0.0.1", port }, () => resolve(server));
  });
}

function close(server: net.Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

describe("allocatePort", () => {
  test("the same project and agent get the same port when it is free", async () => {
    const first = await allocatePort({ root: "/p", agent: "fix-login", range, taken: new Set() });
    const second = await allocatePort({ root: "/p", agent: "fix-login", range, taken: new Set() });
    expect(second).toBe(first);
    expect(first).toBeGreaterThanOrEqual(range.from);
    expect(first).toBeLessThanOrEqual(range.to);
  });

  test("different agents usually get different ports", async () => {
    const a = await allocatePort({ root: "/p", agent: "one", range, taken: new Set() });
    const b = await allocatePort({ root: "/p", agent: "two", range, taken: new Set() });
    expect(a).not.toBe(b);
  });

  test("a taken port moves the agent to the next one", async () => {
    const preferred = await allocatePort({ root: "/p", agent: "probe", range, taken: new Set() });
    const next = await allocatePort({ root: "/p", agent: "probe", range, taken: new Set([preferred]) });
    expect(next).toBe(preferred === range.to ? range.from : preferred + 1);
  });

  test("a port something listens on is skipped", async () => {
    const preferred = await allocatePort({ root: "/q", agent: "busy", range, taken: new Set() });
    const server = await listen(preferred);
    try {
      expect(await isPortFree(preferred)).toBe(false);
      const moved = await allocatePort({ root: "/q", agent: "busy", range, taken: new Set() });
      expect(moved).not.toBe(preferred);
    } finally {
      await close(server);
    }
  });

  test("the chosen port is added to taken, so concurrent callers sharing it never collide", async () => {
    const taken = new Set<number>();
    // A range of its own each run: a fixed one collided with the same test of another suite run
    // on the machine (CI beside a local run), whose listeners held a port of it for an instant.
    const from = 20_000 + Math.floor(Math.random() * 1_200) * 10; // below the ephemeral ports (32768+)
    const small = { from, to: from + 9 };
    const ports = await Promise.all(
      Array.from({ length: 10 }, () => allocatePort({ root: "/r", agent: "same", range: small, taken })),
    );
    expect(new Set(ports).size).toBe(10);
    expect(taken.size).toBe(10);
  });

  test("a full range fails with what to do", async () => {
    const taken = new Set([47100, 47101]);
    const error = await allocatePort({ root: "/r", agent: "x", range: { from: 47100, to: 47101 }, taken }).catch(
      (e: unknown) => e,
    );
    expect(isOffrunError(error, "invalid_input")).toBe(true);
    expect((error as Error).message).toContain("portRange");
  });
});
