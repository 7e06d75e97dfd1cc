import fs from "node:fs";
import chokidar, { type FSWatcher } from "chokidar";
import { HARNESSES } from "../../harnesses/registry.js";
import type { Harness } from "../../harnesses/types.js";
import type { Account } from "../account-model.js";
import { accountProcessEnv, listAccounts } from "../accounts.js";
import { locateBinary } from "../binaries.js";
import { describeError } from "../errors.js";
import { userPaths } from "../paths.js";
import { readAccountQuota } from "./pipeline.js";

/** Appends come in bursts (a streamed answer writes many lines): one refresh per burst. */
const SETTLE_MS = 500;
/** How often to look again for a home that does not exist yet. */
const MISSING_HOME_POLL_MS = 30_000;

export interface QuotaWatcher {
  close(): Promise<void>;
}

/**
 * Keeps every login's quota current in the companion: watches the session folders of each
 * login's home and, after a burst of appends, re-reads that login's quota (the sources read only
 * what was appended). A home that does not exist yet is looked for again until it appears, and
 * a login added while the companion runs is picked up from accounts.json.
 */
export async function watchQuota(options: {
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
}): Promise<QuotaWatcher> {
  const watchers: FSWatcher[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const watched = new Set<string>();
  type Login = { harness: Harness; account: Account; binary?: string };

  const refresh = async ({ harness, account, binary }: Login, changedFiles?: string[]) => {
    try {
      await readAccountQuota({
        account,
        harness,
        binary,
        env: { ...options.env, ...accountProcessEnv(account, harness) },
        ...(changedFiles ? { changedFiles } : {}),
      });
    } catch (error) {
      options.log(`quota of ${harness.id}/${account.label} could not be read: ${describeError(error)}`);
    }
  };

  const watchLogin = (login: Login) => {
    let pending: NodeJS.Timeout | undefined;
    const changed = new Set<string>();
    const schedule = (file?: string) => {
      if (file) changed.add(file);
      if (pending) clearTimeout(pending);
      pending = setTimeout(() => {
        pending = undefined;
        const files = [...changed];
        changed.clear();
        void refresh(login, files.length > 0 ? files : undefined);
      }, SETTLE_MS);
      timers.add(pending);
    };
    const watchRoot = (root: string) => {
      const watcher = chokidar.watch(root, { ignoreInitial: true, awaitWriteFinish: false });
      watcher
        .on("add", schedule)
        .on("change", schedule)
        .on("error", (error) => options.log(`watching ${root}: ${describeError(error)}`));
      watchers.push(watcher);
    };
    for (const root of login.harness.sessionRoots(login.account.home)) {
      if (fs.existsSync(root)) {
        watchRoot(root);
        continue;
      }
      const poll = setInterval(() => {
        if (!fs.existsSync(root)) return;
        clearInterval(poll);
        timers.delete(poll);
        watchRoot(root);
        schedule(); // a whole walk: the folder is new
      }, MISSING_HOME_POLL_MS);
      poll.unref();
      timers.add(poll);
    }
    void refresh(login); // a first reading at start, so the cache is never empty for long
  };

  /** Starts watching every login not watched yet (at start, and when accounts.json changes). */
  const watchNewLogins = async () => {
    for (const harness of HARNESSES) {
      const binary = await locateBinary(harness.id, harness.binaryName, options.env);
      for (const account of await listAccounts(harness.id, options.env).catch(() => [])) {
        const key = `${harness.id}/${account.label}\u0000${account.home}`;
        if (watched.has(key)) continue;
        watched.add(key);
        watchLogin({ harness, account, binary });
      }
    }
  };
  await watchNewLogins();
  const accountsWatcher = chokidar.watch(userPaths().accounts, { ignoreInitial: true });
  accountsWatcher.on(
    "all",
    () => void watchNewLogins().catch((error) => options.log(`accounts: ${describeError(error)}`)),
  );
  watchers.push(accountsWatcher);

  return {
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      await Promise.all(watchers.map((w) => w.close()));
    },
  };
}
