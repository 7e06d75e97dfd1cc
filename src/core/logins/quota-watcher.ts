import { listHarnesses } from "../../harnesses/registry.js";
import type { Harness } from "../../harnesses/types.js";
import type { Login } from "../foundation/login-model.js";
import { loginProcessEnv, listLogins } from "./store.js";
import { locateBinary } from "../foundation/binaries.js";
import { describeError } from "../foundation/errors.js";
import { watchFile } from "../foundation/folder-watch.js";
import { userPaths } from "../foundation/paths.js";
import { SessionFolders } from "../foundation/session-folders.js";
import { readLoginQuota } from "../quota/pipeline.js";

/** Appends come in bursts (a streamed answer writes many lines): one refresh per burst. */
const SETTLE_MS = 500;

export interface QuotaWatcher {
  close(): Promise<void>;
}

/**
 * Keeps every login's quota current in the companion: watches the session folders of each
 * login's home and, after a burst of appends, re-reads that login's quota (the sources read only
 * what was appended). A home that does not exist yet is looked for again until it appears, and
 * a login added while the companion runs is picked up from accounts.json. `folders` is the
 * companion's one watch of the session folders (the transcript watcher shares it).
 */
export async function watchQuota(options: {
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
  folders?: SessionFolders;
}): Promise<QuotaWatcher> {
  const folders = options.folders ?? new SessionFolders({ log: options.log });
  const timers = new Set<NodeJS.Timeout>();
  const watched = new Set<string>();
  type WatchedLogin = { harness: Harness; login: Login; binary?: string };

  const refresh = async ({ harness, login, binary }: WatchedLogin, changedFiles?: string[]) => {
    try {
      await readLoginQuota({
        login,
        harness,
        binary,
        env: { ...options.env, ...loginProcessEnv(login, harness) },
        ...(changedFiles ? { changedFiles } : {}),
      });
    } catch (error) {
      options.log(`quota of ${harness.id}/${login.label} could not be read: ${describeError(error)}`);
    }
  };

  const watchLogin = (target: WatchedLogin) => {
    let pending: NodeJS.Timeout | undefined;
    const changed = new Set<string>();
    const schedule = (file?: string) => {
      if (file) changed.add(file);
      if (pending) clearTimeout(pending);
      pending = setTimeout(() => {
        pending = undefined;
        const files = [...changed];
        changed.clear();
        void refresh(target, files.length > 0 ? files : undefined);
      }, SETTLE_MS);
      timers.add(pending);
    };
    for (const root of target.harness.sessionRoots(target.login.home)) {
      void folders.subscribe(root, {
        onFile: (file, event, initial) => {
          if (!initial && event !== "unlink") schedule(file);
        },
      });
    }
  };

  /**
   * The first reading of each login, one login after another: read all at once, ten logins' cold
   * session files made a heap peak the companion then kept for its whole life.
   */
  let firstReadings = Promise.resolve();
  const readFirst = (target: WatchedLogin) => {
    firstReadings = firstReadings.then(() => (closed ? undefined : refresh(target)));
  };
  let closed = false;

  /** Starts watching every login not watched yet (at start, and when accounts.json changes). */
  const watchNewLogins = async () => {
    for (const harness of await listHarnesses({ env: options.env, tolerant: true })) {
      const binary = await locateBinary(harness.id, harness.binaryName, options.env);
      for (const listed of await listLogins(harness, options.env).catch(() => [])) {
        const key = `${harness.id}/${listed.label}\u0000${listed.home}`;
        if (watched.has(key)) continue;
        watched.add(key);
        const target = { harness, login: listed, binary };
        watchLogin(target);
        readFirst(target); // so the cache is never empty for long
      }
    }
  };
  await watchNewLogins();
  const loginsWatcher = watchFile(
    userPaths().accounts,
    () => void watchNewLogins().catch((error) => options.log(`logins: ${describeError(error)}`)),
    { log: (line) => options.log(`logins: ${line}`) },
  );

  return {
    close: async () => {
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      loginsWatcher?.close();
      if (!options.folders) await folders.close();
      await firstReadings;
    },
  };
}
