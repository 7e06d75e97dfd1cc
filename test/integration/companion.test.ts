import fs from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { COMPANION_NODE_FLAGS } from "../../src/core/companion/node-flags.js";
import { makeSandbox, runOffrun, type Sandbox } from "../helpers/offrun.js";

// The companion as a process: started by the CLI, a user-only socket, and sturdy against bad clients.

let box: Sandbox;
beforeAll(async () => {
  box = await makeSandbox("offrun-comp-");
});
afterAll(async () => {
  await box.cleanup();
});

const offrun = (...args: string[]) => runOffrun(args, { env: box.env, cwd: box.dir });
const socketPath = () => path.join(box.offrunHome, "run", "companion.sock");

async function rawExchange(payload: string | Buffer): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(socketPath());
    let received = "";
    socket.on("data", (d) => (received += d.toString()));
    socket.on("connect", () => socket.write(payload));
    socket.on("close", () => resolve(received));
    socket.on("error", () => resolve(received));
    setTimeout(() => socket.destroy(), 1_000);
  });
}

test("status says the companion is not running, start runs it with a user-only socket", async () => {
  const before = await offrun("companion", "status", "--json");
  expect(JSON.parse(before.stdout)).toEqual({ running: false });
  expect(before.exitCode).toBe(3);

  const started = await offrun("companion", "start", "--json");
  expect(started).toSucceed();
  const info = JSON.parse(started.stdout) as { pid: number };
  expect(info.pid).toBeGreaterThan(0);

  expect((await fs.stat(path.join(box.offrunHome, "run"))).mode & 0o777).toBe(0o700);
  expect((await fs.stat(socketPath())).mode & 0o777).toBe(0o600);

  const status = JSON.parse((await offrun("companion", "status", "--json")).stdout) as { pid: number };
  expect(status.pid).toBe(info.pid);
  // With the companion's Node flags (a smaller young generation: about 93 MB, not 120-125 MB).
  if (process.platform === "linux") {
    const argv = (await fs.readFile(`/proc/${info.pid}/cmdline`, "utf8")).split("\0");
    expect(argv.slice(1, 1 + COMPANION_NODE_FLAGS.length)).toEqual([...COMPANION_NODE_FLAGS]);
  }
});

test("a client that sends garbage loses only its own connection", async () => {
  await rawExchange("this is not json-rpc\r\n\r\n{{{{");
  await rawExchange(Buffer.from([0, 1, 2, 3, 255, 254]));
  await rawExchange('Content-Length: 10\r\n\r\n{"jsonrpc":');
  const status = await offrun("companion", "status", "--json");
  expect(status).toSucceed();
});

test("a request with invalid parameters gets a clear error, not a crash", async () => {
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "agent.start", params: { project: 42 } });
  const reply = await rawExchange(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  expect(reply).toContain('"error"');
  expect(reply).toContain("project");
  expect(await offrun("companion", "status")).toSucceed();
});

test("a hundred clients at once all get answers", async () => {
  const results = await Promise.all(
    Array.from({ length: 100 }, () => {
      const body = JSON.stringify({ jsonrpc: "2.0", id: 7, method: "ping", params: {} });
      return rawExchange(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    }),
  );
  expect(results.filter((r) => r.includes('"pid"'))).toHaveLength(100);
});

test("stop ends it and removes the socket; a second start after kill -9 works", async () => {
  const pid = Number((await fs.readFile(path.join(box.offrunHome, "run", "companion.pid"), "utf8")).trim());
  process.kill(pid, "SIGKILL");
  await new Promise((r) => setTimeout(r, 200));
  const restarted = JSON.parse((await offrun("companion", "start", "--json")).stdout) as { pid: number };
  expect(restarted.pid).not.toBe(pid);
  const stopped = await offrun("companion", "stop");
  expect(stopped).toSucceed();
  await expect(fs.access(socketPath())).rejects.toThrow();
});
