import fs from "node:fs/promises";
import type { Command } from "commander";
import { CompanionClient } from "../core/companion/client.js";
import { runCompanion } from "../core/companion/run.js";
import { OffrunError } from "../core/errors.js";
import { userPaths } from "../core/paths.js";
import { isAlive } from "../core/process.js";
import { action, withGlobals } from "./agent-commands.js";
import { companion, offrunVersion, output, type GlobalOptions } from "./context.js";

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

export function registerCompanionCommands(program: Command): void {
  const group = program.command("companion").description("the background process that runs agents");

  group
    .command("run")
    .description("run the companion in the foreground")
    .option("--verbose", "also print its log to stderr")
    .action(
      action(async (options: { verbose?: boolean }) => {
        await runCompanion({ version: offrunVersion(), echo: options.verbose });
        process.exit(0);
      }),
    );

  withGlobals(group.command("start").description("start the companion in the background")).action(
    action(async (options: GlobalOptions) => {
      const client = await companion();
      const info = await client.ping();
      client.close();
      output(options, info, () => `Companion running (pid ${info.pid}).`);
    }),
  );

  withGlobals(group.command("status").description("is the companion running?")).action(
    action(async (options: GlobalOptions) => {
      const info = await tryPing();
      output(options, info ?? { running: false }, () =>
        info
          ? `Companion ${info.version} running: pid ${info.pid}, since ${info.startedAt}, ${info.running} turn(s) in progress.\n  socket: ${userPaths().socket}\n  log:    ${userPaths().companionLog}`
          : `Companion not running. It starts by itself when needed, or run: offrun companion start`,
      );
      if (!info) process.exitCode = 3;
    }),
  );

  withGlobals(group.command("stop").description("stop the companion (running turns are stopped)")).action(
    action(async (options: GlobalOptions) => {
      const info = await tryPing();
      if (!info) return output(options, { stopped: false }, () => "Companion was not running.");
      const client = await CompanionClient.connect();
      await client.request("shutdown", {}).catch(() => undefined);
      client.close();
      const deadline = Date.now() + 15_000;
      while (isAlive(info.pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      if (isAlive(info.pid)) process.kill(info.pid, "SIGKILL");
      await fs.rm(userPaths().socket, { force: true });
      output(options, { stopped: true, pid: info.pid }, () => `Companion stopped (pid ${info.pid}).`);
    }),
  );
}
