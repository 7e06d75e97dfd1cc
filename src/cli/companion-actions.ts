import fs from "node:fs/promises";
import { CompanionClient } from "../core/companion/client.js";
import { OffrunError } from "../core/errors.js";
import { userPaths } from "../core/paths.js";
import { isAlive } from "../core/pids.js";
import { companion } from "./context.js";
import { offrunVersion, output, type GlobalOptions } from "./output.js";

/** offrun companion run|start|status|stop */

async function tryPing() {
  try {
    const client = await CompanionClient.connect();
    try {
      return await client.ping();
    } finally {
      client.close();
    }
  } catch (error) {
    if (error instanceof OffrunError && error.kind === "companion_unavailable") return undefined;
    throw error;
  }
}

export async function run(options: { verbose?: boolean }): Promise<void> {
  // The whole core (supervisor, harnesses, git) loads only in the companion itself.
  const { runCompanion } = await import("../core/companion/run.js");
  await runCompanion({ version: offrunVersion(), echo: options.verbose });
  process.exit(0);
}

export async function start(options: GlobalOptions): Promise<void> {
  const client = await companion();
  const info = await client.ping();
  client.close();
  output(options, info, () => `Companion running (pid ${info.pid}).`);
}

export async function status(options: GlobalOptions): Promise<void> {
  const info = await tryPing();
  const paths = userPaths();
  output(options, info ?? { running: false }, () =>
    info
      ? `Companion ${info.version} running: pid ${info.pid}, since ${info.startedAt}, ${info.running} turn(s) in progress.\n  socket: ${paths.socket}\n  log:    ${paths.companionLog}`
      : "Companion not running. It starts by itself when needed, or run: offrun companion start",
  );
  if (!info) process.exitCode = 3;
}

export async function stop(options: GlobalOptions): Promise<void> {
  const info = await tryPing();
  if (!info) return output(options, { stopped: false }, () => "Companion was not running.");
  const client = await CompanionClient.connect();
  await client.request("shutdown", {}).catch(() => undefined);
  client.close();
  const deadline = Date.now() + 15_000;
  while (isAlive(info.pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  if (isAlive(info.pid)) process.kill(info.pid, "SIGKILL");
  await fs.rm(userPaths().socket, { force: true });
  output(options, { stopped: true, pid: info.pid }, () => `Companion stopped (pid ${info.pid}).`);
}
