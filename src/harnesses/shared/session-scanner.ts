import { COPIED_MARK } from "./copied-lines.js";
import { randomBytes } from "node:crypto";
import { closeSync, openSync, readSync } from "node:fs";
import { mkdir, readFile, readdir, rename, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from "../../core/foundation/private-files.js";
import * as z from "zod";

/**
 * An incremental reader of the JSONL session files under a few folders (a CLI's `projects/` or
 * `sessions/`). It remembers, per file, how far it has read and hands only the complete lines
 * appended since then to a fold, which keeps a small aggregate. Offsets and aggregate are saved
 * together in the cache folder, so a restart continues where the last run stopped.
 *
 * The fold must tolerate seeing a line twice: a truncated or replaced file is read again from its
 * start, and a crash between a read and the save of its state replays what was read.
 */
export interface ScannerConfig<A> {
  /** The cache file's name inside `cacheDir` (one per index). */
  name: string;
  /** Bumped when the fold or the aggregate's shape changes: an older cache is then dropped. */
  version: number;
  roots: readonly string[];
  cacheDir: string;
  /** Which files under the roots hold sessions. */
  matches(file: string): boolean;
  /**
   * ASCII substrings a line must contain (any one) to reach the fold. Lines without one are never
   * decoded: they are skipped by a byte search over whole chunks, which is what makes a cold
   * scan of a gigabyte fast.
   */
  needles: readonly string[];
  initial(): A;
  /**
   * Folds one line that holds a needle (its bytes, without the newline; a view valid only during
   * the call), and says whether it was used, not of interest, or not JSON. Bytes, not text, so a
   * fold can skip decoding the parts it does not need (a message's content).
   */
  fold(aggregate: A, line: Buffer, file: string): "used" | "ignored" | "corrupt";
  /** The aggregate as JSON for the cache, and back (undefined when the saved one is unusable). */
  encode(aggregate: A): unknown;
  decode(saved: unknown): A | undefined;
  /** Drops what the aggregate no longer needs before it is saved (old de-duplication keys). */
  compact?(aggregate: A): void;
}

const fileStateSchema = z.object({ offset: z.number(), size: z.number(), mtimeMs: z.number(), ino: z.number() });
type FileState = z.infer<typeof fileStateSchema>;
const cacheSchema = z.object({
  name: z.string(),
  version: z.number(),
  roots: z.array(z.string()),
  files: z.record(z.string(), fileStateSchema),
  corruptLines: z.number(),
  /** When the roots were last walked in full (epoch ms). */
  walkedAt: z.number().default(0),
  aggregate: z.unknown(),
});

/** What one refresh did. */
export interface ScanStats {
  filesSeen: number;
  filesRead: number;
  bytesRead: number;
  linesFolded: number;
  /** Lines that held a needle but were not JSON (a line cut by a crash, a disk error). */
  corruptLines: number;
  /** Files read again from the start because they shrank or were replaced. */
  rescanned: number;
}

const CHUNK_BYTES = 4 << 20;
/**
 * A refresh given the watcher's changed files still walks the roots when the last walk is older
 * than this: a source that was not asked for a while (a more trusted one answered) would
 * otherwise never see the files that changed in between.
 */
const FULL_WALK_EVERY_MS = 60_000;
/** Let timers and requests in between on a cold scan of a large history. */
const YIELD_EVERY_BYTES = 16 << 20;
const NEWLINE = 0x0a;

export class SessionScanner<A> {
  private files = new Map<string, FileState>();
  private state: A;
  private corruptTotal = 0;
  private walkedAt = 0;
  private loaded = false;
  private buffer: Buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  private sinceYield = 0;
  private readonly needles: Buffer[];
  private readonly cacheFile: string;
  /** Refreshes run one at a time: they share the read buffer and the file map. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly config: ScannerConfig<A>) {
    this.state = config.initial();
    this.needles = config.needles.map((needle) => Buffer.from(needle, "utf8"));
    this.cacheFile = path.join(config.cacheDir, `${config.name}.json`);
  }

  get aggregate(): A {
    return this.state;
  }

  /** Lines skipped as corrupt since the cache was created. */
  get corruptLines(): number {
    return this.corruptTotal;
  }

  /**
   * Reads what was appended since the last refresh. With `changedFiles` (what a file watcher
   * reported) only those are looked at; without, the roots are walked and every file's size checked.
   */
  refresh(changedFiles?: readonly string[]): Promise<ScanStats> {
    const run = this.queue.then(() => this.refreshNow(changedFiles));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async refreshNow(changedFiles?: readonly string[]): Promise<ScanStats> {
    if (!this.loaded) await this.load();
    const stats: ScanStats = {
      filesSeen: 0,
      filesRead: 0,
      bytesRead: 0,
      linesFolded: 0,
      corruptLines: 0,
      rescanned: 0,
    };
    let candidates: string[];
    let forgotten = 0;
    if (changedFiles && Date.now() - this.walkedAt < FULL_WALK_EVERY_MS) {
      candidates = changedFiles.filter((file) => this.isOurs(file));
    } else {
      this.walkedAt = Date.now();
      candidates = (await Promise.all(this.config.roots.map((root) => walk(root))))
        .flat()
        .filter((f) => this.config.matches(f));
      const present = new Set(candidates);
      for (const known of this.files.keys()) if (!present.has(known)) forgotten += Number(this.files.delete(known));
    }
    stats.filesSeen = candidates.length;
    const infos = await Promise.all(candidates.map((file) => stat(file).catch(() => undefined)));
    for (const [index, file] of candidates.entries()) {
      const info = infos[index];
      if (!info?.isFile()) {
        forgotten += Number(this.files.delete(file));
        continue;
      }
      const known = this.files.get(file);
      if (known && known.size === info.size && known.mtimeMs === info.mtimeMs && known.ino === info.ino) continue;
      // Replaced (another inode), shrunk, or rewritten in place at the same size: read it all again.
      const restart =
        known !== undefined && (known.ino !== info.ino || info.size < known.offset || info.size === known.size);
      if (restart) stats.rescanned++;
      const from = known && !restart ? known.offset : 0;
      const offset = await this.readFrom(file, from, stats);
      this.files.set(file, { offset, size: info.size, mtimeMs: info.mtimeMs, ino: info.ino });
      stats.filesRead++;
    }
    this.corruptTotal += stats.corruptLines;
    // Nothing new, nothing to write: the companion's refreshes mostly find no change.
    if (stats.filesRead > 0 || forgotten > 0 || !changedFiles) await this.save();
    return stats;
  }

  private isOurs(file: string): boolean {
    return this.config.roots.some((root) => file.startsWith(root + path.sep)) && this.config.matches(file);
  }

  /**
   * Reads `file` from `from` to its last newline; returns the new offset. Synchronous reads (with a
   * yield to the event loop between chunks) are about twice as fast as fs.promises here: a cold
   * scan opens thousands of small files, and each promise-based call pays a thread-pool round trip.
   */
  private async readFrom(file: string, from: number, stats: ScanStats): Promise<number> {
    let fd: number;
    try {
      fd = openSync(file, "r");
    } catch {
      return from; // deleted between the listing and now
    }
    try {
      let position = from; // file offset of buffer[0]
      let filled = 0;
      for (;;) {
        if (filled === this.buffer.length) this.buffer = growKeeping(this.buffer, filled); // one line longer than the buffer
        const bytesRead = readSync(fd, this.buffer, filled, this.buffer.length - filled, position + filled);
        if (bytesRead === 0) break;
        stats.bytesRead += bytesRead;
        filled += bytesRead;
        const lastNewline = this.buffer.lastIndexOf(NEWLINE, filled - 1);
        if (lastNewline < 0) continue; // a line longer than what is read so far
        this.foldLines(this.buffer.subarray(0, lastNewline + 1), file, stats);
        // Keep the partial line at the end for the next read.
        const consumed = lastNewline + 1;
        this.buffer.copy(this.buffer, 0, consumed, filled);
        position += consumed;
        filled -= consumed;
        this.sinceYield += consumed;
        if (this.sinceYield >= YIELD_EVERY_BYTES) {
          this.sinceYield = 0;
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
      return position; // a partial last line waits for its newline
    } finally {
      closeSync(fd);
    }
  }

  /** Hands every line of `region` (whole lines only) that holds a needle to the fold. */
  private foldLines(region: Buffer, file: string, stats: ScanStats): void {
    const hits = this.needles.map((needle) => region.indexOf(needle, 0));
    for (;;) {
      let hit = -1;
      for (const h of hits) if (h >= 0 && (hit < 0 || h < hit)) hit = h;
      if (hit < 0) return;
      const start = region.lastIndexOf(NEWLINE, hit) + 1; // -1 + 1 on the first line
      const end = region.indexOf(NEWLINE, hit);
      const line = region.subarray(start, end);
      // Lines copied in with a session from another login are that login's usage, not this one's.
      const outcome = line.includes(COPIED_MARK) ? "ignored" : this.config.fold(this.state, line, file);
      if (outcome === "used") stats.linesFolded++;
      else if (outcome === "corrupt") stats.corruptLines++;
      for (const [i, h] of hits.entries()) if (h >= 0 && h <= end) hits[i] = region.indexOf(this.needles[i]!, end + 1);
    }
  }

  private async load(): Promise<void> {
    this.loaded = true;
    let saved: z.infer<typeof cacheSchema>;
    try {
      const parsed = cacheSchema.safeParse(JSON.parse(await readFile(this.cacheFile, "utf8")));
      if (!parsed.success) return;
      saved = parsed.data;
    } catch {
      return; // no cache yet, or an unreadable one: start over
    }
    const sameRoots = saved.roots.join("\n") === this.config.roots.join("\n");
    if (saved.name !== this.config.name || saved.version !== this.config.version || !sameRoots) return;
    const aggregate = this.config.decode(saved.aggregate);
    if (aggregate === undefined) return;
    this.state = aggregate;
    this.files = new Map(Object.entries(saved.files));
    this.corruptTotal = saved.corruptLines;
    this.walkedAt = saved.walkedAt;
  }

  /** Writes offsets and aggregate together, atomically (a temp file renamed over the old one). */
  private async save(): Promise<void> {
    this.config.compact?.(this.state);
    const body = JSON.stringify({
      name: this.config.name,
      version: this.config.version,
      roots: this.config.roots,
      files: Object.fromEntries(this.files),
      corruptLines: this.corruptTotal,
      walkedAt: this.walkedAt,
      aggregate: this.config.encode(this.state),
    });
    await mkdir(this.config.cacheDir, { recursive: true, mode: PRIVATE_DIR_MODE });
    const temp = `${this.cacheFile}.${randomBytes(4).toString("hex")}.tmp`;
    await writeFile(temp, body, { mode: PRIVATE_FILE_MODE });
    await rename(temp, this.cacheFile);
  }
}

function growKeeping(buffer: Buffer, used: number): Buffer {
  const bigger = Buffer.allocUnsafe(buffer.length * 2);
  buffer.copy(bigger, 0, 0, used);
  return bigger;
}

/** Every file under `root` (a missing root has none), one folder level at a time in parallel. */
async function walk(root: string): Promise<string[]> {
  const out: string[] = [];
  let level = [root];
  while (level.length > 0) {
    const dirs = level;
    const listings = await Promise.all(dirs.map((dir) => readdir(dir, { withFileTypes: true }).catch(() => [])));
    level = [];
    for (const [index, entries] of listings.entries()) {
      for (const entry of entries) {
        const full = path.join(dirs[index]!, entry.name);
        // Symlinks are not followed: a link cycle would never end, and the CLIs write none.
        if (entry.isDirectory()) level.push(full);
        else if (entry.isFile()) out.push(full);
      }
    }
  }
  return out;
}

const kept = new Map<string, SessionScanner<unknown>>();

/**
 * The scanner of `config` for the login at `home`, kept for the life of the process (the
 * companion's refreshes reuse it): one per login, cache folder and cache name, made on first use.
 */
export function keptSessionScanner<A>(home: string, config: ScannerConfig<A>): SessionScanner<A> {
  const key = `${config.name}\0${home}\0${config.cacheDir}`;
  const known = kept.get(key) as SessionScanner<A> | undefined;
  if (known) return known;
  const scanner = new SessionScanner(config);
  kept.set(key, scanner as SessionScanner<unknown>);
  return scanner;
}
