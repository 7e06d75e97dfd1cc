import fs from "node:fs/promises";
import type { ProcessRunner } from "../foundation/runner.js";
import net from "node:net";
import lockfile from "proper-lockfile";
import path from "node:path";
import { diskFullAdvice, isDiskFull } from "../foundation/disk-full.js";
import { OffrunError, describeError } from "../foundation/errors.js";
import { userPaths } from "../foundation/paths.js";
import type { Supervisor } from "../agents/supervisor.js";
import { methods, RPC_OFFRUN_ERROR, type Handlers, type MethodName, type PingResult } from "../protocol/protocol.js";
import { explainZodError } from "../foundation/store.js";
import { RpcCodes, RpcReplyError } from "../protocol/rpc-connection.js";
import { acceptSocket } from "../protocol/rpc-socket.js";
import { prepareReview } from "../review/service.js";
import { switchLogin } from "../logins/switch.js";
import { changeHandlers } from "./changes.js";
import { ChangeBeacon } from "./change-beacon.js";
import { viewHandlers } from "./view-handlers.js";
import { hostHandlers, type Following } from "./host-handlers.js";
import type { HostLinks } from "../remote/links.js";

export interface CompanionServer {
  close(): Promise<void>;
  /** Resolves when a client asked the companion to shut down. */
  closed: Promise<void>;
}

export interface ServeOptions {
  supervisor: Supervisor;
  version: string;
  log: (line: string) => void;
  /** Requests are held until this resolves (recovery of the last companion's agents). */
  ready?: Promise<void>;
  /** Where reviewers' CLIs run, as the supervisor's agents do (see foundation/runner.ts). */
  runner?: ProcessRunner;
  /** The connections to other machines' companions, for the host.* requests. */
  hosts?: HostLinks;
  /** Told of every change a follower may show (run.ts: the snapshot writer's), for `changes.wait`. */
  changes?: ChangeBeacon;
  /** The hosts' mirrors, set once the companion follows them: `hosts.agents` answers from them. */
  following?: Following;
}

/**
 * Listens on the user-only Unix socket in OFFRUN_HOME. Each connection speaks JSON-RPC 2.0 a
 * message per line, or with Content-Length headers when a face of the previous version opens it
 * that way (protocol/rpc-socket.ts); a client that sends garbage only loses its own connection.
 */
export async function serveCompanion(options: ServeOptions): Promise<CompanionServer> {
  const paths = userPaths();
  await fs.mkdir(paths.run, { recursive: true, mode: 0o700 });
  await fs.chmod(paths.run, 0o700);

  const startedAt = new Date().toISOString();
  const connections = new Set<net.Socket>();
  let requestShutdown: () => void = () => undefined;
  let handover: NodeJS.Timeout | undefined;
  const shutdownRequested = new Promise<void>((resolve) => (requestShutdown = resolve));
  const changes = options.changes ?? new ChangeBeacon();

  const server = net.createServer((socket) => {
    connections.add(socket);
    const handlers: Handlers<MethodName> = {
      ping: async (): Promise<PingResult> => ({
        pid: process.pid,
        version: options.version,
        startedAt,
        running: options.supervisor.runningCount(),
        service: isServiceInstance(),
      }),
      "agent.start": (p) => options.supervisor.start(p),
      "agent.send": (p) => options.supervisor.send(p.project, p.name, p.prompt),
      "agent.handoff": (p) => options.supervisor.handoff(p),
      // Under the supervisor's turn lock: a message sent at the same moment starts after the switch, on the new login.
      "agent.switch": (p) => options.supervisor.whileIdle(p.project, p.name, () => switchLogin(p)),
      ...changeHandlers(options.supervisor, options.log),
      ...viewHandlers(options.version, changes),
      ...hostHandlers(options.hosts, options.following),
      "agent.stop": (p) => options.supervisor.stop(p.project, p.name),
      "agent.wait": async (p) => (await options.supervisor.wait(p.project, p.name)) ?? null,
      "agent.approve": (p) =>
        options.supervisor.decide(
          p.project,
          p.name,
          p.deny
            ? { kind: "deny", ...(p.reason === undefined ? {} : { reason: p.reason }) }
            : { kind: "allow", ...(p.always ? { always: true } : {}) },
          p.requestId,
        ),
      "agent.answer": (p) => options.supervisor.answer(p.project, p.name, p.text, p.requestId),
      "agent.review": async ({ wait, ...request }) => {
        const prepared = await prepareReview(request, process.env, undefined, options.runner);
        const done = prepared.run();
        if (wait) return done;
        done.catch((error: unknown) => options.log(`review of ${request.name} failed: ${describeError(error)}`));
        return { reviewer: prepared.reviewer, warnings: prepared.warnings };
      },
      "companion.handover": async () => {
        if (!handover) {
          options.log("handing over to the login service: stopping once no turn runs");
          handover = setInterval(() => {
            if (options.supervisor.runningCount() > 0) return;
            clearInterval(handover);
            requestShutdown();
          }, HANDOVER_POLL_MS);
        }
        return { running: options.supervisor.runningCount() };
      },
      shutdown: async () => {
        setImmediate(requestShutdown);
        return { ok: true };
      },
    };
    const answer = async (method: string, params: unknown): Promise<unknown> => {
      if (!Object.hasOwn(methods, method))
        throw new RpcReplyError(RpcCodes.MethodNotFound, `Unhandled method ${method}`);
      const name = method as MethodName;
      const parsed = methods[name].safeParse(params ?? {});
      if (!parsed.success) {
        throw new RpcReplyError(RpcCodes.InvalidParams, explainZodError(name, parsed.error, "Check the request."));
      }
      try {
        await options.ready;
        return await (handlers[name] as (p: unknown) => Promise<unknown>)(parsed.data);
      } catch (error) {
        const kind = error instanceof OffrunError ? error.kind : "process_failed";
        if (!(error instanceof OffrunError)) options.log(`${name} failed: ${(error as Error)?.stack ?? error}`);
        // A full disk is the user's to fix (a merge, a record): said as that, with the error's own words.
        const said = isDiskFull(error)
          ? `${await diskFullAdvice(path.dirname(error.path ?? "."), error, "try again")} The write that failed: ${describeError(error)}`
          : describeError(error);
        throw new RpcReplyError(RPC_OFFRUN_ERROR, said, { kind });
      }
    };
    socket.on("close", () => connections.delete(socket));
    socket.on("error", () => socket.destroy());
    acceptSocket(socket, answer, (error) =>
      options.log(`client sent something unreadable (${describeError(error)}); closing its connection`),
    );
  });

  server.maxConnections = 1000;
  // Probe, remove a dead socket and bind under a short lock, so two companions started at
  // once cannot both bind (the second would unlink the first one's socket).
  const release = await lockfile.lock(paths.run, {
    lockfilePath: `${paths.socket}.lock`,
    stale: 5_000,
    retries: { retries: 50, minTimeout: 20, maxTimeout: 200 },
    // Without a handler proper-lockfile throws from its update timer when it finds the lock taken
    // or gone (a stalled event loop, another process judging it stale): an uncaught error that
    // ended the companion at a shutdown once. The socket is what counts; the lock only guards the bind.
    onCompromised: (error) => options.log(`socket lock: ${describeError(error)}; going on, the bind decides`),
  });
  try {
    await removeStaleSocket(paths.socket);
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(paths.socket, () => resolve());
    });
  } finally {
    // A compromised lock is already released: releasing it again throws ERELEASED.
    await release().catch((error: unknown) => {
      if ((error as NodeJS.ErrnoException).code !== "ERELEASED") throw error;
    });
  }
  await fs.chmod(paths.socket, 0o600);
  await fs.writeFile(paths.pidFile, `${process.pid}\n`, { mode: 0o600 });

  const close = async () => {
    clearInterval(handover);
    server.close();
    for (const socket of connections) socket.destroy();
    await fs.rm(paths.socket, { force: true });
    await fs.rm(paths.pidFile, { force: true });
  };
  return { close, closed: shutdownRequested };
}

const HANDOVER_POLL_MS = 500;

/** This companion was started by the login service (its definition sets OFFRUN_COMPANION_SERVICE). */
export function isServiceInstance(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.OFFRUN_COMPANION_SERVICE === "1";
}

/** A socket file left by a companion that died: remove it unless something answers on it. */
async function removeStaleSocket(socketPath: string): Promise<void> {
  const alive = await new Promise<boolean>((resolve) => {
    const probe = net.connect(socketPath);
    probe.once("connect", () => {
      probe.destroy();
      resolve(true);
    });
    probe.once("error", () => resolve(false));
  });
  if (alive) {
    throw new OffrunError(
      "conflict",
      `Another companion is already running on ${socketPath}. Use \`offrun companion stop\` first.`,
    );
  }
  await fs.rm(socketPath, { force: true });
}
