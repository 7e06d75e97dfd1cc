import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { watchFolder } from "./folder-watch.js";

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
  path: string;
  subscribers: Set<FolderSubscriber>;
  /** One watch per folder of the tree; undefined while the root is missing. */
  dirs?: Map<string, fs.FSWatcher>;
  /** The first listing is done: files seen from now on are new. */
  listed: boolean;
  /** The folder appeared after the companion started: everything in it is new, listing or not. */
  appeared: boolean;
  ready: Promise<void>;
}

/**
 * The companion's one watch over the logins' session folders, shared by the quota watcher and the
 * transcript watcher. Folders only, one `fs.watch` each: a folder's watch already reports what
 * happens to the files in it, which is all a follower of appends needs, and a watch per file
 * would cost an inotify watch and a few KB of heap for each of 5,000 sessions. Each folder is
 * watched first and listed after, so whatever is made in it meanwhile is in the listing or comes
 * as an event. chokidar 5 (used here before) lists a new folder and only then watches it: a
 * `chats/` folder Gemini made right after its project folder fell between the two and was never
 * watched, nor the session in it.
 */
export class SessionFolders {
  private readonly roots = new Map<string, Root>();
  private poll: NodeJS.Timeout | undefined;
  /** Paths with watch events not yet looked at (with the folder that reported them): a burst of writes is one stat. */
  private readonly touched = new Map<string, { root: Root; dir: string }>();
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
      const dirs = [...(known.dirs?.keys() ?? [])];
      await Promise.all(dirs.map((dir) => this.listFiles(dir, (file) => subscriber.onFile(file, "add", true))));
      return;
    }
    const entry: Root = {
      path: root,
      subscribers: new Set([subscriber]),
      listed: false,
      appeared: false,
      ready: Promise.resolve(),
    };
    this.roots.set(root, entry);
    if (fs.existsSync(root)) entry.ready = this.watch(entry, false);
    else this.waitFor();
    await entry.ready;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.poll) clearInterval(this.poll);
    for (const entry of this.roots.values()) this.unwatch(entry, entry.path);
  }

  private async watch(entry: Root, appeared: boolean): Promise<void> {
    entry.listed = false;
    entry.appeared = appeared;
    entry.dirs = new Map();
    await this.watchDir(entry, entry.path);
    entry.listed = true;
  }

  private emit(entry: Root, file: string, event: FolderEvent): void {
    // A session written into a home that appeared while it was being listed is news, not history.
    const initial = event !== "unlink" && !entry.listed && !entry.appeared;
    for (const subscriber of entry.subscribers) subscriber.onFile(file, event, initial);
  }

  /** Watches `dir`, then lists it: its files are announced, its folders watched the same way. */
  private async watchDir(entry: Root, dir: string): Promise<void> {
    const dirs = entry.dirs;
    if (!dirs || dirs.has(dir) || this.closed) return;
    const watcher = watchFolder(
      dir,
      (name) => {
        // Some platforms do not say which entry changed: look at them all.
        if (name) this.touch(path.join(dir, name), entry, dir);
        else
          void this.listEntries(dir).then((names) => names.forEach((n) => this.touch(path.join(dir, n), entry, dir)));
      },
      { log: this.options.log, onClosed: () => this.unwatch(entry, dir) },
    );
    // Gone again before it could be watched (a folder made and removed at once).
    if (!watcher) return;
    dirs.set(dir, watcher);
    const entries = await fsp.readdir(dir, { withFileTypes: true }).catch(() => []);
    const subdirs: Promise<void>[] = [];
    for (const item of entries) {
      const full = path.join(dir, item.name);
      if (item.isFile()) this.emit(entry, full, "add");
      // Symbolic links below the root are not followed: session folders have none, and a link up the tree would loop.
      else if (item.isDirectory()) subdirs.push(this.watchDir(entry, full));
    }
    await Promise.all(subdirs);
  }

  /** Stops watching `dir` and every folder under it. */
  private unwatch(entry: Root, dir: string): void {
    for (const [watched, watcher] of entry.dirs ?? []) {
      if (watched !== dir && !watched.startsWith(dir + path.sep)) continue;
      watcher.close();
      entry.dirs?.delete(watched);
    }
  }

  /** Looks at paths with watch events once per turn of the event loop (a streamed answer writes many times). */
  private touch(changed: string, root: Root, dir: string): void {
    this.touched.set(changed, { root, dir });
    if (this.flushing) return;
    this.flushing = true;
    setImmediate(() => {
      this.flushing = false;
      const batch = [...this.touched];
      this.touched.clear();
      for (const [file, { root, dir }] of batch) void this.look(file, root, dir);
    });
  }

  /** What a watch event was about: a file that grew or went, a new folder, or a folder that went. */
  private async look(changed: string, root: Root, dir: string): Promise<void> {
    const stats = await fsp.stat(changed).catch(() => undefined);
    if (this.closed || !root.dirs?.has(dir)) return;
    if (stats?.isDirectory()) return this.watchDir(root, changed);
    if (stats?.isFile()) return this.emit(root, changed, "change");
    if (stats) return;
    if (root.dirs.has(changed)) return this.unwatch(root, changed);
    this.emit(root, changed, "unlink");
    // A folder's own removal comes to its watch under the folder's own name (or after its last file's).
    if (fs.existsSync(dir)) return;
    this.unwatch(root, dir);
    if (dir !== root.path) return;
    root.dirs = undefined;
    for (const subscriber of root.subscribers) subscriber.onRootGone?.();
    this.waitFor();
  }

  /** The files (not folders) directly in `dir`. */
  private async listFiles(dir: string, announce: (file: string) => void): Promise<void> {
    const entries = await fsp.readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) if (entry.isFile()) announce(path.join(dir, entry.name));
  }

  private async listEntries(dir: string): Promise<string[]> {
    return fsp.readdir(dir).catch(() => []);
  }

  /** One timer looks for every missing root; it stops when none is missing. */
  private waitFor(): void {
    if (this.poll || this.closed) return;
    this.poll = setInterval(() => {
      let missing = 0;
      for (const entry of this.roots.values()) {
        if (entry.dirs) continue;
        if (!fs.existsSync(entry.path)) {
          missing++;
          continue;
        }
        entry.ready = this.watch(entry, true);
      }
      if (missing === 0 && this.poll) {
        clearInterval(this.poll);
        this.poll = undefined;
      }
    }, this.options.missingRootPollMs ?? MISSING_ROOT_POLL_MS);
    this.poll.unref();
  }
}
