import { refreshMenuBar } from "../notify/menu-bar-refresh.js";
import fs from "node:fs";
import { localRunner } from "../foundation/runner.js";
import { keepGroupsWithThisProcess } from "../foundation/lifeline.js";
import { loadExeca } from "../foundation/process.js";
import { describeError, isOffrunError } from "../foundation/errors.js";
import { userPaths } from "../foundation/paths.js";
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, tightenPrivateFiles } from "../foundation/private-files.js";
import { knownProjects } from "../foundation/project.js";
import { Supervisor } from "../agents/supervisor.js";
import { watchQuota } from "../logins/quota-watcher.js";
import { chatEventNotifier, notifyFromChats } from "../notify/chat-notifications.js";
import { HostLinks } from "../remote/links.js";
import { followHosts } from "./follow.js";
import type { Following } from "./host-handlers.js";
import { Notifier } from "../notify/notifier.js";
import { ExternalNotifications } from "../notify/external.js";
import { watchTranscripts } from "../notify/transcript-watch.js";
import { followHookInbox } from "../notify/hook-inbox.js";
import { SessionFolders } from "../foundation/session-folders.js";
import { writeSnapshots } from "./snapshot-writer.js";
import { ChangeBeacon } from "./change-beacon.js";
import { watchSignIns } from "../logins/sign-in-watch.js";
import { finishLoginChanges } from "../logins/login-recovery.js";
import { isServiceInstance, serveCompanion } from "./server.js";
import { CompanionStop } from "../agents/turn-stop.js";
import { onStateProblem, stateProblems, type StateProblem } from "../foundation/state-problems.js";
import { keepStateProblem } from "../foundation/problem-register.js";
import { visible } from "../foundation/visible.js";

/** The most the companion's log holds before it is rotated (OFFRUN_COMPANION_LOG_MB to change it). */
const COMPANION_LOG_BYTES = Number(process.env.OFFRUN_COMPANION_LOG_MB ?? 10) * 1024 * 1024;

/**
 * The companion's main loop: recover agents left working by a companion that died, serve the
 * socket, and stop cleanly on SIGTERM/SIGINT or a `shutdown` request.
 */
export async function runCompanion(options: { version: string; echo?: boolean }): Promise<void> {
  const startedAt = new Date().toISOString();
  const paths = userPaths();
  fs.mkdirSync(paths.home, { recursive: true, mode: PRIVATE_DIR_MODE });
  // The log is bounded: past COMPANION_LOG_BYTES it becomes companion.log.1 (the one before it is
  // dropped, and the new log says how much), so nothing a host or an agent makes it write fills the disk.
  let logBytes = fs.statSync(paths.companionLog, { throwIfNoEntry: false })?.size ?? 0;
  const rotate = () => {
    const older = `${paths.companionLog}.1`;
    const dropped = fs.statSync(older, { throwIfNoEntry: false })?.size ?? 0;
    fs.renameSync(paths.companionLog, older);
    const note = `${new Date().toISOString()} [${process.pid}] the log went on past ${COMPANION_LOG_BYTES / 1024 / 1024} MB: what came before is in ${older}${dropped ? `, and ${Math.round(dropped / 1024)} KB older than that were dropped` : ""}\n`;
    fs.appendFileSync(paths.companionLog, note, { mode: PRIVATE_FILE_MODE });
    logBytes = Buffer.byteLength(note);
  };
  const log = (line: string) => {
    // Lines quote agents and hosts; someone reads this log with `tail -f` in a terminal.
    const text = `${new Date().toISOString()} [${process.pid}] ${visible(line)}\n`;
    try {
      if (logBytes + text.length > COMPANION_LOG_BYTES) rotate();
      logBytes += Buffer.byteLength(text);
      fs.appendFileSync(paths.companionLog, text, { mode: PRIVATE_FILE_MODE });
    } catch (error) {
      // A full disk must not take the companion down; say it where someone may see it.
      process.stderr.write(`offrun companion: cannot write its log (${describeError(error)}): ${text}`);
    }
    if (options.echo) process.stderr.write(text);
  };

  // The companion owns every running agent: one bug must be logged, not end them all.
  process.on("uncaughtException", (error) => log(`uncaught: ${error.stack ?? describeError(error)}`));
  process.on("unhandledRejection", (reason) =>
    log(`unhandled rejection: ${reason instanceof Error ? (reason.stack ?? reason.message) : String(reason)}`),
  );
  // Every agent CLI this companion starts (turns, reviews) runs through this one runner. The
  // companion spawns from its first moment (git, ssh): execa is loaded now, not at the first spawn.
  await loadExeca();
  // However this process ends, kill -9 included, the CLIs and commands it started end with it.
  keepGroupsWithThisProcess();
  const runner = localRunner;
  const supervisor = new Supervisor(process.env, runner);
  // Owning the socket makes this the one companion; requests wait until recovery is over, so
  // an agent being set up by this companion is never mistaken for an orphan of the last one.
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  // One SSH connection per host of hosts.json, kept (core/remote).
  const hosts = new HostLinks({ runner, version: options.version, log });
  // What a companion following this one over SSH waits on: whatever rewrites the snapshot.
  const changes = new ChangeBeacon();
  const following: Following = {};
  const server = await serveWhenFree(
    () => serveCompanion({ supervisor, version: options.version, log, ready, runner, hosts, changes, following }),
    log,
  );
  log(`companion ${options.version} listening on ${paths.socket}`);
  await tightenWhatCameBefore(paths.home, log);
  // A corrupt state file is named here, with what was done about it, and kept for the faces that
  // never read that file themselves (problem-register.ts).
  const tell = (problem: StateProblem) => {
    log(`state: ${problem.message}`);
    keepStateProblem(problem).catch((error: unknown) =>
      log(`state: could not keep that problem for the faces: ${describeError(error)}`),
    );
  };
  for (const problem of stateProblems()) tell(problem);
  onStateProblem(tell);
  for (const line of await supervisor.recover()) log(line);
  // A login change cut short (logins/pending.ts), before any turn picks a login.
  for (const line of await finishLoginChanges().catch((error: unknown) => [`login changes: ${describeError(error)}`]))
    log(line);
  markReady();
  // One watch of the logins' session folders for quota and transcripts alike.
  const folders = new SessionFolders({ log });
  const quota = await watchQuota({ env: process.env, log, folders });
  // Off the start path: picks read the cache, and a status command may take seconds.
  const signIns = watchSignIns({ env: process.env, log });
  const notifier = new Notifier({ log });
  const notifications = await notifyFromChats({ notifier, log });
  // One ExternalNotifications for every outside source, so a transcript and a hook telling the same moment notify once.
  const external = new ExternalNotifications(notifier);
  const transcripts = await watchTranscripts({
    env: process.env,
    log,
    folders,
    onSignal: (signal) => void external.offer(signal).catch((error: unknown) => log(`notify: ${describeError(error)}`)),
  });
  void transcripts.ready.then(() => log("transcripts: watching the session folders of every login"));
  const hookInbox = await followHookInbox({ external, log });
  let remoteChanged: () => void = () => undefined;
  const remote = followHosts(hosts, chatEventNotifier(notifier), log, () => remoteChanged());
  following.current = remote;
  await hosts.start();
  const snapshots = await writeSnapshots({
    companion: { pid: process.pid, version: options.version, startedAt },
    notifications: () => notifier.recent(),
    subscribe: (listener) => notifier.subscribe(listener),
    remote: () => remote.snapshot(),
    onChange: () => changes.changed(),
    onNeedsYou: () => void refreshMenuBar(log),
    log,
  });
  remoteChanged = () => snapshots.changed();

  // The turns it ends say why: the companion going away is not the user's stop.
  const stop = await new Promise<CompanionStop>((resolve) => {
    process.once("SIGTERM", () => resolve(new CompanionStop("signal")));
    process.once("SIGINT", () => resolve(new CompanionStop("signal")));
    void server.closed.then(() => resolve(new CompanionStop("stop")));
  });
  log(`stopping (${stop.cause === "stop" ? "asked to stop" : "signal"}): ending running turns`);
  await supervisor.shutdown(stop);
  await remote.close();
  await hosts.close();
  await quota.close();
  signIns.close();
  await notifications.close();
  await transcripts.close();
  await folders.close();
  await hookInbox.close();
  await snapshots.close();
  await server.close();
  log("stopped");
}

/**
 * The login service's companion, started while another one runs (one a face or `companion start`
 * began before the service was installed), waits for that one to hand over instead of exiting:
 * exiting would only have the service manager start it again every few seconds. Any other
 * companion refuses to run twice.
 */
async function serveWhenFree<T>(serve: () => Promise<T>, log: (line: string) => void): Promise<T> {
  let said = false;
  for (;;) {
    try {
      return await serve();
    } catch (error) {
      if (!isServiceInstance() || !isOffrunError(error, "conflict")) throw error;
      if (!said)
        log(
          "another companion is running: waiting for it to hand over its agents (offrun companion install asks it to)",
        );
      said = true;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
}

/**
 * Files an older Offrun (or a copy, or an editor) left readable by others are made user-only once
 * per start, here rather than on each CLI call: it walks OFFRUN_HOME and every known project's
 * private folders. Never fatal: a file it cannot change is named in the log.
 */
async function tightenWhatCameBefore(home: string, log: (line: string) => void): Promise<void> {
  try {
    const result = await tightenPrivateFiles(home, await knownProjects().catch(() => []));
    if (result.changed.length > 0) {
      const shown = result.changed.slice(0, 5).join(", ");
      const more = result.changed.length > 5 ? ` and ${result.changed.length - 5} more` : "";
      log(`private: took group and other access off ${shown}${more}`);
    }
    for (const failure of result.failed) log(`private: could not make ${failure.path} user-only: ${failure.problem}`);
  } catch (error) {
    log(`private: ${describeError(error)}`);
  }
}
