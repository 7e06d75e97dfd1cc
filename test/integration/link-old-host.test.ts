import fs from "node:fs/promises";
import path from "node:path";
import { PassThrough, type Readable, type Writable } from "node:stream";
import rpc from "vscode-jsonrpc/node.js";
import { isOffrunError } from "../../src/core/foundation/errors.js";
import { LineSplitter } from "../../src/core/foundation/lines.js";
import type { PipedProcess } from "../../src/core/foundation/process.js";
import { localRunner, type ProcessRunner } from "../../src/core/foundation/runner.js";
import { RPC_OFFRUN_ERROR } from "../../src/core/protocol/protocol.js";
import { bridgeStdio } from "../../src/core/remote/bridge.js";
import { HostLink } from "../../src/core/remote/link.js";
import { makeSandbox, type Sandbox } from "../helpers/offrun.js";
import { oldBridgeStdio } from "../helpers/old-bridge.js";
import { startOldCompanionServer } from "../helpers/old-companion-server.js";

// The link to a host speaks a line per message, as every version's `companion stdio` did: a host
// still running the previous version (its bridge and its Content-Length companion) is connected and
// asked as before, and so is one whose offrun was updated while its old companion still runs. These
// hold compatibility: they passed on the code before the one framing too (the link then ran on
// vscode-jsonrpc), and fail if the link or the bridge stops speaking what that version speaks.

type Bridge = (input: Readable, output: Writable, log: (line: string) => void, socketPath: string) => Promise<void>;

/** A runner whose "ssh" is `bridge` in this process, its stdout cut into lines as the real runner cuts them. */
function runnerThrough(bridge: Bridge, socketPath: string): ProcessRunner {
  const piped = (): PipedProcess => {
    const stdin = new PassThrough();
    const out = new PassThrough();
    const stdout = new PassThrough({ objectMode: true });
    const lines = new LineSplitter(
      (line) => stdout.write(line),
      () => undefined,
    );
    out.setEncoding("utf8");
    out.on("data", (chunk: string) => lines.push(chunk));
    const exited = bridge(stdin, out, () => undefined, socketPath).then(() => {
      lines.end();
      stdout.end();
      return { exitCode: 0, signal: undefined, stderrTail: "" };
    });
    const idle = () => undefined;
    return {
      stdin,
      stdout,
      exited,
      pid: undefined,
      kill: () => stdin.end(),
      progress: idle,
      pause: idle,
      resume: idle,
    };
  };
  return { ...localRunner, piped };
}

let box: Sandbox;
let old: Awaited<ReturnType<typeof startOldCompanionServer>>;
let socketPath: string;
beforeAll(async () => {
  box = await makeSandbox("offrun-lnk-");
  socketPath = path.join(box.dir, "old.sock");
  await fs.mkdir(box.dir, { recursive: true });
  old = await startOldCompanionServer(socketPath, {
    hello: () => ({ protocol: 1, version: "0.0.9", hostname: "oldbox" }),
    ping: () => ({ pid: 4242, version: "0.0.9", startedAt: "2026-12-01T00:00:00.000Z", running: 0 }),
    "agent.stop": () => {
      throw new rpc.ResponseError(RPC_OFFRUN_ERROR, "No agent nobody on oldbox.", { kind: "not_found" });
    },
  });
});
afterAll(async () => {
  await old.close();
  await box.cleanup();
});

test.each<[string, Bridge]>([
  ["the previous version's bridge", oldBridgeStdio],
  ["this version's bridge", bridgeStdio],
  [
    "a shell whose login script prints a line first",
    (input, output, log, socketPath) => {
      output.write("Welcome to oldbox\n");
      return bridgeStdio(input, output, log, socketPath);
    },
  ],
])("connects through %s to a companion of the previous version and asks it", async (_, bridge) => {
  const link = new HostLink(
    { name: "oldbox", destination: "oldbox", addedAt: "2026-12-01T00:00:00.000Z" },
    { runner: runnerThrough(bridge, socketPath), version: "0.1.0", log: () => undefined },
  );
  link.start();
  try {
    await link.settled(10_000);
    expect(link.state).toMatchObject({ state: "connected", remote: { version: "0.0.9", hostname: "oldbox" } });
    expect(await link.call("ping", {})).toMatchObject({ pid: 4242 });
    const refused = await link.call("agent.stop", { project: "/p", name: "nobody" }).catch((e: unknown) => e);
    expect(isOffrunError(refused, "not_found")).toBe(true);
    expect((refused as Error).message).toBe("oldbox: No agent nobody on oldbox.");
  } finally {
    link.close();
  }
});
