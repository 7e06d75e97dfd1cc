import fs from "node:fs/promises";
import path from "node:path";
import { ChangeBeacon } from "../../src/core/companion/change-beacon.js";
import { CompanionClient } from "../../src/core/protocol/client.js";
import { OffrunError } from "../../src/core/foundation/errors.js";
import type { HostLink } from "../../src/core/remote/link.js";
import { ChatMirror } from "../../src/core/companion/mirror.js";
import { makeRepo, makeSandbox, runOffrun, useSandboxInProcess, type Sandbox } from "../helpers/offrun.js";
import { agentRecord } from "../helpers/records.js";

// A companion that follows another over SSH waits for the host's next change (`changes.wait`)
// instead of asking every second: an idle host and its follower do no work.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("the beacon", () => {
  test("answers at once for a token that is not its own, at the next change, or at the timeout", async () => {
    const beacon = new ChangeBeacon();
    const first = await beacon.next(undefined, 1_000);
    expect(await beacon.next("another companion's token", 1_000)).toBe(first);

    const waited = beacon.next(first, 5_000);
    await sleep(50);
    beacon.changed();
    const second = await waited;
    expect(second).not.toBe(first);

    const started = Date.now();
    expect(await beacon.next(second, 200)).toBe(second);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
  });
});

describe("a real companion", () => {
  let box: Sandbox;
  let root: string;
  beforeAll(async () => {
    box = await makeSandbox("offrun-chw-");
    root = await makeRepo(path.join(box.dir, "app"), box.env);
    const agents = path.join(root, ".offrun", "agents");
    await fs.mkdir(agents, { recursive: true });
    await fs.writeFile(
      path.join(agents, "up.json"),
      JSON.stringify(agentRecord(root, "up", { task: "make the upload test stable" })),
    );
    const projects = { version: 1, projects: [{ root, lastUsedAt: new Date().toISOString() }] };
    await fs.writeFile(path.join(box.offrunHome, "projects.json"), JSON.stringify(projects));
    expect(await runOffrun(["companion", "start"], { env: box.env, cwd: root })).toSucceed();
    useSandboxInProcess(box);
  });
  afterAll(async () => {
    await runOffrun(["companion", "stop"], { env: box.env, cwd: root });
    await box.cleanup();
  });

  test("holds changes.wait while nothing changes and answers when an agent's record does", async () => {
    const client = await CompanionClient.connect();
    try {
      // A companion that has just started writes its caches (sign-ins, quota) once: wait for the quiet.
      let token = (await client.call("changes.wait", { timeoutMs: 1_000 })).token;
      let quiet = false;
      for (let tries = 0; tries < 20 && !quiet; tries++) {
        const idle = Date.now();
        const next = (await client.call("changes.wait", { after: token, timeoutMs: 1_500 })).token;
        if (next === token) {
          // Nothing changed: the wait ran to its timeout with the same token.
          expect(Date.now() - idle).toBeGreaterThanOrEqual(1_400);
          quiet = true;
        }
        token = next;
      }
      expect(quiet).toBe(true);

      const waited = client.call("changes.wait", { after: token, timeoutMs: 20_000 });
      await sleep(200);
      const changedAt = Date.now();
      const file = path.join(root, ".offrun", "agents", "up.json");
      await fs.writeFile(
        file,
        JSON.stringify(agentRecord(root, "up", { task: "make the upload test stable", status: "done" })),
      );
      const { token: next } = await waited;
      expect(next).not.toBe(token);
      // Told by the file watcher (and the snapshot's debounce), long before the wait would end.
      expect(Date.now() - changedAt).toBeLessThan(10_000);
    } finally {
      client.close();
    }
  });

  test("refuses a wait longer than a minute", async () => {
    const client = await CompanionClient.connect();
    try {
      await expect(client.call("changes.wait", { timeoutMs: 3_600_000 })).rejects.toThrow(/timeoutMs/);
    } finally {
      client.close();
    }
  });
});

describe("the mirror", () => {
  /** A connected host with no agents that counts what it is asked; `waits` answers changes.wait. */
  function host(waits: (after: string | undefined) => Promise<{ token: string }>) {
    const asked: string[] = [];
    const link = {
      host: { name: "devbox", destination: "devbox" },
      state: { state: "connected" },
      call: async (method: string, params: { after?: string }) => {
        asked.push(method);
        if (method === "agents.list") return { hostname: `devbox, listing ${lists(asked)}`, projects: [] };
        if (method === "changes.wait") return waits(params.after);
        throw new Error(`unexpected ${method}`);
      },
    };
    return { link: link as unknown as HostLink, asked };
  }
  const lists = (asked: string[]) => asked.filter((m) => m === "agents.list").length;
  /** A host that holds each changes.wait given a token until `change()`; given none, it answers at once. */
  function holdingHost() {
    let changed: (() => void) | undefined;
    const held = host(
      (after) =>
        new Promise((resolve) => {
          if (after === undefined) return resolve({ token: "t0" });
          changed = () => resolve({ token: `${after}+` });
        }),
    );
    return { ...held, change: () => changed!() };
  }

  test("an idle host is asked once, and again only when it says something changed", async () => {
    const { link, asked, change } = holdingHost();
    const mirror = new ChatMirror(link, { onEvent: () => undefined, log: () => undefined });
    mirror.follow();
    await sleep(2_500);
    // One round: the first wait (given no token, the host answers at once) comes before it.
    expect(lists(asked)).toBe(1);
    change();
    await sleep(300);
    expect(lists(asked)).toBe(2);
    await mirror.close();
  });

  test("a host that holds the wait is listed from memory, and asked again after a request forwarded to it", async () => {
    const { link, asked, change } = holdingHost();
    const mirror = new ChatMirror(link, { onEvent: () => undefined, log: () => undefined });
    // Before the first round, nothing is known: a listing asks the host.
    expect(mirror.currentListing()).toBeUndefined();
    mirror.follow();
    await sleep(300);
    expect(mirror.currentListing()?.hostname).toBe("devbox, listing 1");
    expect(lists(asked)).toBe(1);

    // A start forwarded to the host: not current from before it is sent until a round after it ended.
    const ended = mirror.forwarding();
    expect(mirror.currentListing()).toBeUndefined();
    await sleep(100);
    expect(mirror.currentListing()).toBeUndefined();
    ended();
    await sleep(200);
    expect(mirror.currentListing()?.hostname).toBe("devbox, listing 2");

    // The host says something changed: the round's listing is the current one.
    change();
    await sleep(300);
    expect(mirror.currentListing()?.hostname).toBe("devbox, listing 3");
    await mirror.close();
  });

  test("a host with an older offrun (no changes.wait) is asked every second", async () => {
    const { link, asked } = host(async () => {
      throw new OffrunError("invalid_input", "devbox: Unhandled method changes.wait");
    });
    const mirror = new ChatMirror(link, { onEvent: () => undefined, log: () => undefined });
    mirror.follow();
    await sleep(3_300);
    // It never says when something changed there, so every listing asks it.
    expect(mirror.currentListing()).toBeUndefined();
    await mirror.close();
    expect(lists(asked)).toBeGreaterThanOrEqual(3);
    // It stopped asking for what the host does not know after the first refusal.
    expect(asked.filter((m) => m === "changes.wait")).toHaveLength(1);
  });
});
