import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import chokidar, { type FSWatcher } from "chokidar";
import { describeError } from "./errors.js";

/** How often to look again for a session folder that does not exist yet (a login never used). */
const MISSING_ROOT_POLL_MS = 5_000;

/** What happened to a file under a watched root. */
export type FolderEvent = "add" | "change" | "unlink";

export interface FolderSubscriber {
  /**
   * A file under the root appeared, grew or went. `initial`: it was there before the watch began
   * (found by the first listing). "change" may come for a file never announced (created between
   * two listings): treat it as new.
   */
  onFile(file: string, event: FolderEvent, initial: boolean): void;
  /** The root went (a login's home removed); it is looked for again, and its files come as new when it is back. */
  onRootGone?(): void;
}

interface Root {
  subscribers: Set<FolderSubscriber>;
  watcher?: FSWatcher;
  /** The first listing is done: files seen from now on are new. */
  listed: boolean;
  ready: Promise<void>;
}

/**
 * The companion's one watch over the logins' session folders, shared by the quota watcher and the
 * transcript watcher. chokidar watches the folders only: a file of its own costs chokidar an
 * inotify watch, a Stats and a few closures, about 3.5 KB of heap each (17 MB for 5,000 sessions,
 * twice with two watchers), and a folder's own watch already reports what happens to the files
 * in it (the `raw` event), which is all a follower of appends needs. The files themselves are
 * listed once per folder, when chokidar finds it.
 */
export class SessionFolders {
  private readonly roots = new Map<string, Root>();
  private poll: NodeJS.Timeout | undefined;
  /** Files with raw events not yet looked at: a burst of writes is one stat. */
  private readonly touched = new Map<string, Root>();
  private flushing = false;
  private closed = false;

  constructor(private readonly options: { log: (line: string) => void; missingRootPollMs?: number }) {}

  /** Follows `root` for `subscriber`; resolves once its files there now were announced (at once when it is missing). */
  async subscribe(root: string, subscriber: FolderSubscriber): Promise<void> {
    const known = this.roots.get(root);
    if (known) {
      known.subscribers.add(subscriber);
      await known.ready;
      // It was listed for the others: list it again for this one.
      if (known.watcher) await this.announceTree(known.watcher, root, (file) => subscriber.onFile(file, "add", true));
      return;
    }
    const entry: Root = { subscribers: new Set([subscriber]), listed: false, ready: Promise.resolve() };
    this.roots.set(root, entry);
    if (fs.existsSync(root)) entry.ready = this.watch(root, entry, false);
    else this.waitFor();
    await entry.ready;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.poll) clearInterval(this.poll);
    await Promise.all([...this.roots.values()].map((r) => r.watcher?.close()));
  }

  private watch(root: string, entry: Root, appeared: boolean): Promise<void> {
    entry.listed = false;
    const watcher = chokidar.watch(root, {
      ignoreInitial: false,
      // Folders only (see the class comment); a path without stats yet is asked again with them.
      ignored: (_file, stats) => stats?.isFile() === true,
    });
    entry.watcher = watcher;
    const listings: Promise<void>[] = [];
    const emit = (file: string, event: FolderEvent) => {
      for (const subscriber of entry.subscribers) subscriber.onFile(file, event, !entry.listed && !appeared);
    };
    watcher
      .on("addDir", (dir) => listings.push(this.announceFiles(dir, (file) => emit(file, "add"))))
      .on("raw", (_event, name: unknown, details: unknown) => {
        const dir = (details as { watchedPath?: unknown } | undefined)?.watchedPath;
        if (typeof name !== "string" || name === "" || typeof dir !== "string") return;
        this.touch(path.join(dir, name), entry);
      })
      .on("unlinkDir", (dir) => {
        if (dir !== root) return;
        void watcher.close();
        entry.watcher = undefined;
        for (const subscriber of entry.subscribers) subscriber.onRootGone?.();
        this.waitFor();
      })
      .on("error", (error) => this.options.log(`watching ${root}: ${describeError(error)}`));
    return new Promise<void>((resolve) => watcher.once("ready", () => resolve())).then(async () => {
      await Promise.all(listings);
      entry.listed = true;
    });
  }

  /** Looks at files with raw events once per turn of the event loop (a streamed answer writes many times). */
  private touch(file: string, entry: Root): void {
    this.touched.set(file, entry);
    if (this.flushing) return;
    this.flushing = true;
    setImmediate(() => {
      this.flushing = false;
      const batch = [...this.touched];
      this.touched.clear();
      for (const [changed, root] of batch) {
        void fsp.stat(changed).then(
          (stats) => {
            if (!stats.isFile() || this.closed) return;
            for (const subscriber of root.subscribers) subscriber.onFile(changed, "change", !root.listed);
          },
          () => {
            if (this.closed) return;
            for (const subscriber of root.subscribers) subscriber.onFile(changed, "unlink", false);
          },
        );
      }
    });
  }

  /** The files (not folders) directly in `dir`. */
  private async announceFiles(dir: string, announce: (file: string) => void): Promise<void> {
    const entries = await fsp.readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) if (entry.isFile()) announce(path.join(dir, entry.name));
  }

  private async announceTree(watcher: FSWatcher, root: string, announce: (file: string) => void): Promise<void> {
    const dirs = Object.keys(watcher.getWatched()).filter((d) => d === root || d.startsWith(root + path.sep));
    await Promise.all(dirs.map((dir) => this.announceFiles(dir, announce)));
  }

  /** One timer looks for every missing root; it stops when none is missing. */
  private waitFor(): void {
    if (this.poll || this.closed) return;
    this.poll = setInterval(() => {
      let missing = 0;
      for (const [root, entry] of this.roots) {
        if (entry.watcher) continue;
        if (!fs.existsSync(root)) {
          missing++;
          continue;
        }
        entry.ready = this.watch(root, entry, true);
      }
      if (missing === 0 && this.poll) {
        clearInterval(this.poll);
        this.poll = undefined;
      }
    }, this.options.missingRootPollMs ?? MISSING_ROOT_POLL_MS);
    this.poll.unref();
  }
}
