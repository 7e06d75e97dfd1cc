import fs from "node:fs";
import path from "node:path";
import { listHarnesses } from "../../harnesses/registry.js";
import type { Harness, TranscriptClassifier, TranscriptMoment, TranscriptReader } from "../../harnesses/types.js";
import { listLogins } from "../logins/store.js";
import { describeError } from "../foundation/errors.js";
import { watchFile } from "../foundation/folder-watch.js";
import { userPaths } from "../foundation/paths.js";
import { SessionFolders, type FolderSubscriber } from "../foundation/session-folders.js";
import type { ExternalSignal } from "./external.js";
import { readAppendedLines, readFirstLine, tailPosition, type TailPosition } from "./tail.js";
import { loadOffsets, OffsetSaver, offsetsFile, type SavedOffset } from "./transcript-offsets.js";

const SAVE_DELAY_MS = 1_000;

export interface TranscriptWatchOptions {
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
  /** Each moment, as a signal for ExternalNotifications. */
  onSignal: (signal: ExternalSignal) => void;
  harnesses?: readonly Harness[];
  /** Where offsets are kept (default ~/.offrun/cache/transcript-offsets.json). */
  offsetsPath?: string;
  missingRootPollMs?: number;
  /** The companion's one watch of the session folders (shared with the quota watcher); its own otherwise. */
  folders?: SessionFolders;
}

export interface TranscriptWatch {
  /** Resolves once every session folder that exists at start is watched. */
  ready: Promise<void>;
  close(): Promise<void>;
}

type Waiting = NonNullable<SavedOffset["waiting"]>;

interface Followed {
  harness: Harness;
  reader: TranscriptReader;
  position: TailPosition;
  classifier: TranscriptClassifier;
  /** Started mid-file: the first line (session id, cwd) is read before the appended ones. */
  needsHead: boolean;
  /** Calls the last companion left waiting: re-armed after the head line, before what was appended. */
  restore?: Waiting;
  queue: Promise<void>;
  reading: boolean;
  /** Grew again while being read: read once more. */
  again: boolean;
  dueTimer?: NodeJS.Timeout;
}

/**
 * Notices what sessions started outside Offrun (another terminal, an editor) do: watches the
 * session folders of every login of every harness that can read its transcripts, reads only what
 * was appended (from a byte offset saved across restarts, with the tool calls still waiting), and
 * hands the harness's moments on as signals. Transcripts there at start begin at their end (old
 * sessions are not news) unless an offset was saved; transcripts created while running, or in a
 * folder that appeared while running, are read from their start. A transcript costs a classifier
 * only once it grows: until then it is a number (5,000 idle sessions are the usual case).
 */
export async function watchTranscripts(options: TranscriptWatchOptions): Promise<TranscriptWatch> {
  const harnesses = (options.harnesses ?? (await listHarnesses({ env: options.env, tolerant: true }))).filter(
    (h) => h.transcripts,
  );
  const savePath = options.offsetsPath ?? offsetsFile();
  const saved = await loadOffsets(savePath);
  const folders =
    options.folders ??
    new SessionFolders({
      log: options.log,
      ...(options.missingRootPollMs ? { missingRootPollMs: options.missingRootPollMs } : {}),
    });
  const files = new Map<string, Followed>();
  /** Transcripts there at start, not grown since: where each will be read from. */
  const dormant = new Map<string, { offset: number; ino: number }>();
  const subscribed = new Set<string>();
  // Transcripts unknown to the last companion but written after it last saved were new while it was down.
  const savedAt = fs.statSync(savePath, { throwIfNoEntry: false })?.mtimeMs;
  let closed = false;

  const saver = new OffsetSaver(
    savePath,
    () => {
      const out: Record<string, SavedOffset> = {};
      for (const [file, followed] of files) {
        const { offset, ino } = followed.position;
        const waiting = followed.restore ?? followed.classifier.waiting?.() ?? [];
        // A line still being written is read again from its start next time.
        out[file] = {
          offset: offset - followed.position.partial.length,
          ...(ino === undefined ? {} : { ino }),
          ...(waiting.length > 0 ? { waiting } : {}),
        };
      }
      return out;
    },
    SAVE_DELAY_MS,
    options.log,
  );

  const emit = (harness: Harness, moments: TranscriptMoment[]) => {
    for (const moment of moments) options.onSignal({ harness: harness.id, source: "transcript", ...moment });
  };
  /** One read can hold several turns (a file read from its start): only the latest of each kind is news. */
  const latestOfEachKind = (moments: TranscriptMoment[]) =>
    moments.filter(
      (m, i) => m.kind === "needs-approval" || !moments.slice(i + 1).some((later) => later.kind === m.kind),
    );

  const scheduleDue = (file: string, followed: Followed) => {
    if (followed.dueTimer) clearTimeout(followed.dueTimer);
    const next = followed.classifier.nextDueAt();
    if (next === undefined || closed) return;
    followed.dueTimer = setTimeout(
      () => {
        if (files.get(file) !== followed) return;
        const moments = followed.classifier.due(Date.now());
        emit(followed.harness, moments);
        // A call told is saved no more, so a restart does not tell it again.
        if (moments.length > 0) saver.schedule();
        scheduleDue(file, followed);
      },
      Math.max(0, next - Date.now()),
    );
  };

  const read = async (file: string, followed: Followed) => {
    if (followed.needsHead && followed.position.offset > 0) {
      const head = await readFirstLine(file);
      if (head !== undefined) followed.classifier.push(head); // context only: its moments are old news
    }
    followed.needsHead = false;
    if (followed.restore) followed.classifier.restoreWaiting?.(followed.restore);
    followed.restore = undefined;
    const result = await readAppendedLines(file, followed.position);
    if (result) {
      // Truncated or replaced: a new transcript under the old name, read with a fresh classifier.
      if (result.restarted) followed.classifier = followed.reader.createClassifier(file);
      emit(followed.harness, latestOfEachKind(result.lines.flatMap((line) => followed.classifier.push(line))));
    }
    scheduleDue(file, followed);
  };

  /** Reads what was appended; appends that land during a read make one more read, not a queue of them. */
  const onChange = (file: string, followed: Followed) => {
    if (closed) return;
    if (followed.reading) {
      followed.again = true;
      return;
    }
    followed.reading = true;
    followed.queue = (async () => {
      do {
        followed.again = false;
        const before = followed.position.offset;
        await read(file, followed).catch((error: unknown) =>
          options.log(`transcripts: ${file}: ${describeError(error)}`),
        );
        if (followed.position.offset !== before) saver.schedule();
      } while (followed.again && !closed);
      followed.reading = false;
    })();
  };

  const follow = (harness: Harness, reader: TranscriptReader, file: string, offset: number, ino?: number) => {
    const previous = saved.get(file);
    const followed: Followed = {
      harness,
      reader,
      position: tailPosition(offset, ino),
      classifier: reader.createClassifier(file),
      needsHead: true,
      ...(previous?.waiting && previous.ino === ino ? { restore: previous.waiting } : {}),
      queue: Promise.resolve(),
      reading: false,
      again: false,
    };
    dormant.delete(file);
    files.set(file, followed);
    return followed;
  };

  /**
   * A transcript first seen. One there at start sleeps at its end, unless the last companion saved
   * where it stopped (or left a call waiting in it), or it grew while no companion ran; one new
   * while running is read from its start.
   */
  const meet = (harness: Harness, reader: TranscriptReader, file: string, initial: boolean) => {
    const stat = fs.statSync(file, { throwIfNoEntry: false });
    if (!stat) return;
    const previous = saved.get(file);
    let offset = initial ? stat.size : 0;
    if (previous && previous.ino === stat.ino && previous.offset <= stat.size) offset = previous.offset;
    else if (initial && previous === undefined && savedAt !== undefined && stat.mtimeMs > savedAt) offset = 0;
    if (initial && offset === stat.size && !(previous?.waiting && previous.ino === stat.ino))
      dormant.set(file, { offset, ino: stat.ino });
    else onChange(file, follow(harness, reader, file, offset, stat.ino));
  };

  const forget = (file: string) => {
    dormant.delete(file);
    const followed = files.get(file);
    if (followed?.dueTimer) clearTimeout(followed.dueTimer);
    if (files.delete(file)) saver.schedule();
  };

  const subscriber = (harness: Harness, reader: TranscriptReader, root: string): FolderSubscriber => ({
    onFile: (file, event, initial) => {
      if (closed || !reader.isSession(file, root)) return;
      if (event === "unlink") return forget(file);
      const known = files.get(file);
      if (known) return onChange(file, known);
      const sleeping = dormant.get(file);
      if (!sleeping) return meet(harness, reader, file, initial);
      if (event === "change") onChange(file, follow(harness, reader, file, sleeping.offset, sleeping.ino));
    },
    onRootGone: () => {
      const prefix = root + path.sep;
      for (const file of [...files.keys(), ...dormant.keys()]) if (file.startsWith(prefix)) forget(file);
    },
  });

  /** Watches the session folders of every login not watched yet (at start, and when accounts.json changes). */
  const watchNewLogins = async () => {
    const walks: Promise<void>[] = [];
    for (const harness of harnesses) {
      const reader = harness.transcripts;
      if (!reader) continue;
      for (const login of await listLogins(harness, options.env).catch(() => [])) {
        for (const root of harness.sessionRoots(login.home)) {
          if (subscribed.has(root)) continue;
          subscribed.add(root);
          walks.push(folders.subscribe(root, subscriber(harness, reader, root)));
        }
      }
    }
    await Promise.all(walks);
  };

  const ready = watchNewLogins();
  const loginsWatcher = watchFile(
    userPaths().accounts,
    () => void watchNewLogins().catch((e) => options.log(`transcripts: ${describeError(e)}`)),
    { log: (line) => options.log(`transcripts: ${line}`) },
  );

  return {
    ready,
    close: async () => {
      closed = true;
      for (const followed of files.values()) if (followed.dueTimer) clearTimeout(followed.dueTimer);
      loginsWatcher?.close();
      if (!options.folders) await folders.close();
      await Promise.allSettled([...files.values()].map((f) => f.queue));
      await saver.flush();
    },
  };
}
