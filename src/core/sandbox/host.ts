import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import { importEsm } from "../foundation/esm-import.js";
import { holdProcess } from "../foundation/lifeline.js";
import type { Command } from "../foundation/process.js";
import { Slots } from "../foundation/queue.js";
import type { RuntimeSettings } from "./policy.js";

type Runtime = typeof import("@anthropic-ai/sandbox-runtime");

/**
 * `@anthropic-ai/sandbox-runtime` 0.0.83 inside the companion: loaded and started once (its
 * filtering proxies then serve every sandboxed turn), so a turn pays only for its own wrap and
 * bubblewrap's start, not for a Node process that loads the runtime each time (measured: about
 * 300 ms more per start that way). Each command carries its own policy: the filesystem rules as the
 * wrap's per-call config, the hosts as a network list registered under an unguessable id that the
 * proxy sees on every connection, which is also how its refusals are told apart.
 */
let started: Promise<Runtime["SandboxManager"]> | undefined;

function runtime(): Promise<Runtime["SandboxManager"]> {
  started ??= (async () => {
    const { SandboxManager } = await importEsm<Runtime>("@anthropic-ai/sandbox-runtime");
    // Nothing is open by default: every host comes from the command's own list, every path from
    // its own filesystem rules.
    await SandboxManager.initialize({
      network: { allowedDomains: [], deniedDomains: [] },
      filesystem: { denyRead: [], allowRead: [], allowWrite: [], denyWrite: [] },
    });
    await holdBridges(SandboxManager);
    return SandboxManager;
  })().catch((error: unknown) => {
    started = undefined; // a later turn tries again (the user may have installed what was missing)
    throw error;
  });
  return started;
}

/**
 * On Linux the runtime starts two `socat` bridges (its proxies' ports as Unix sockets that
 * bubblewrap binds into the sandbox) as plain children, in the companion's own process group, and
 * ends them only from its own exit handlers: a companion killed with SIGKILL left them running for
 * good, one pair per companion. They go to the lifeline, which ends them with the companion.
 * Found as the companion's children whose argv names the runtime's socket paths.
 */
async function holdBridges(manager: Runtime["SandboxManager"]): Promise<void> {
  if (process.platform !== "linux") return;
  const sockets = [manager.getLinuxHttpSocketPath(), manager.getLinuxSocksSocketPath()].filter(
    (socket): socket is string => socket !== undefined,
  );
  if (sockets.length === 0) return;
  const { execa } = await import("execa");
  const entries = await fs.readdir("/proc").catch(() => [] as string[]);
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await fs.readFile(`/proc/${entry}/stat`, "utf8").catch(() => "");
    // `pid (comm) state ppid ...`: comm may hold spaces and parentheses, so the fields start after the last ')'.
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    if (ppid !== process.pid) continue;
    const argv = (await fs.readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => "")).split("\0");
    if (argv.some((arg) => sockets.some((socket) => arg.includes(socket)))) holdProcess(Number(entry), execa);
  }
}

/**
 * The runtime reads the working directory of the process when it wraps: it protects the files
 * there that would run for a user working in that folder (`.bashrc`, `.vscode/`, `.mcp.json`),
 * and on Linux holds each missing one with a device file in its place. In an agent's worktree
 * those device files break git (`git add -A`: "can only add regular files"), and what the agent
 * writes there is its work, which the user reviews before a merge. So each wrap runs in the turn's
 * own temp folder, where those placeholders harm nothing, and the command still starts in its
 * own `cwd` (bubblewrap keeps the directory it was started in). Wraps run one at a time, since
 * the working directory and CLAUDE_CODE_TMPDIR are the process's. The companion itself never
 * reads its own working directory: every path it uses is absolute, and every process it starts
 * is given its `cwd`.
 */
const oneAtATime = new Slots(1);

/** One command's place in the runtime: how to wrap its argv, and what the runtime refused it. */
export interface SandboxedCommands {
  wrap(command: Command): Promise<Command>;
  /** The refusal lines the runtime recorded for this turn's commands since the last call. */
  refusalLines(): string[];
  /** One wrapped command's process is over (the runtime then removes placeholders no sandbox still needs). */
  release(): void;
  close(): void;
}

/** `tmpDir` is the turn's own temp folder: TMPDIR inside the sandbox. */
export async function sandboxCommands(settings: RuntimeSettings, tmpDir: string): Promise<SandboxedCommands> {
  const manager = await runtime();
  const { quote } = await importEsm<typeof import("@anthropic-ai/sandbox-runtime/dist/utils/shell-quote.js")>(
    "@anthropic-ai/sandbox-runtime/dist/utils/shell-quote.js",
  );
  // 128 bits, as the runtime asks: the id is what binds a connection to this list.
  const commandId = randomBytes(16).toString("base64url");
  manager.registerCommandNetworkLists(commandId, { allowedDomains: settings.network.allowedDomains });
  let seen = 0;
  let running = 0;
  return {
    async wrap(command) {
      const line = await oneAtATime.run(async () => {
        const before = process.cwd();
        const tmpBefore = process.env.CLAUDE_CODE_TMPDIR;
        process.chdir(tmpDir);
        // The runtime sets TMPDIR inside from this variable of ours (else a /tmp/claude all share).
        process.env.CLAUDE_CODE_TMPDIR = tmpDir;
        try {
          return await manager.wrapWithSandbox(
            quote([command.file, ...command.args]),
            undefined,
            { filesystem: settings.filesystem },
            undefined,
            { commandId },
          );
        } finally {
          process.chdir(before);
          if (tmpBefore === undefined) delete process.env.CLAUDE_CODE_TMPDIR;
          else process.env.CLAUDE_CODE_TMPDIR = tmpBefore;
        }
      });
      running += 1;
      // The runtime's wrap is a command line for a shell (it has no argv form on macOS or Linux);
      // the argv inside it is quoted by the runtime's own quoting. It is one argument to /bin/sh.
      return { ...command, file: "/bin/sh", args: ["-c", line] };
    },
    refusalLines() {
      const all = manager.getSandboxViolationStore().getViolationsForCommand(commandId);
      const fresh = all.slice(Math.min(seen, all.length));
      seen = all.length;
      return fresh.map((violation) => violation.line);
    },
    release() {
      // Only for a wrap that succeeded: the runtime counts live sandboxes, and a failed wrap is not one.
      if (running === 0) return;
      running -= 1;
      manager.cleanupAfterCommand();
    },
    close() {
      manager.unregisterCommandNetworkLists(commandId);
    },
  };
}
