import fs from "node:fs/promises";
import path from "node:path";
import chokidar from "chokidar";
import * as z from "zod";
import { BUILTIN_HARNESSES } from "../../harnesses/registry.js";
import { describeError } from "../foundation/errors.js";
import { hookInboxFile } from "../hooks/hook-paths.js";
import { userPaths } from "../foundation/paths.js";
import { readJsonFile, writeJsonAtomic } from "../foundation/store.js";
import { readAppendedLines, tailPosition } from "./tail.js";
import type { ExternalNotifications, ExternalSignal } from "./external.js";

/**
 * The companion's side of `offrun hook`: follows `~/.offrun/inbox/hooks.jsonl`, reads only the
 * bytes appended since the last read (from a byte offset kept in ~/.offrun/cache/hook-inbox.json,
 * so a restart neither notifies twice nor misses a line), turns each payload into a signal with
 * its harness adapter's `hooks.signal`, and offers it to the external notifications.
 *
 * The inbox is compacted once everything in it was read: it is renamed aside, so the next hook
 * creates a fresh file, and the renamed one is read once more after a grace period: a hook that
 * opened the old file just before the rename writes its line there (one open and one write,
 * back to back), and that line is not lost.
 */

/** Past this size, a fully read inbox is compacted. */
const ROTATE_BYTES = 256 * 1024;
/** How long a hook may take from opening the old inbox to its write landing. */
const ROTATE_GRACE_MS = 1000;
/** A line older than this is not news (the companion was down for long): it is read, not notified. */
const STALE_MS = 60 * 60 * 1000;
/** chokidar drops a change whose mtime equals the last one: after news, look once more. */
const RECHECK_MS = 200;

const stateSchema = z.object({ ino: z.number(), offset: z.number().int().nonnegative() });
type InboxState = z.infer<typeof stateSchema>;

/** One line as hook-entry.ts writes it. */
const entrySchema = z.object({
  harness: z.string(),
  receivedAt: z.string(),
  payload: z.unknown(),
  truncated: z.boolean().optional(),
});

export interface HookInboxOptions {
  external: Pick<ExternalNotifications, "offer">;
  log: (line: string) => void;
  /** Offrun's home (default: OFFRUN_HOME or ~/.offrun). */
  home?: string;
  rotateBytes?: number;
  now?: () => number;
}

export interface HookInbox {
  /** Resolves once the inbox is watched and what was waiting in it has been read. */
  ready: Promise<void>;
  close(): Promise<void>;
}

export async function followHookInbox(options: HookInboxOptions): Promise<HookInbox> {
  const home = options.home ?? userPaths().home;
  const file = hookInboxFile(home);
  const rotated = `${file}.rotated`;
  const stateFile = path.join(home, "cache", "hook-inbox.json");
  const rotateBytes = options.rotateBytes ?? ROTATE_BYTES;
  await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  let state: InboxState | undefined = await readJsonFile(stateFile, stateSchema).catch(() => undefined);
  let closed = false;
  let rotating = false;
  let queue = Promise.resolve();
  const timers = new Set<NodeJS.Timeout>();

  const later = (ms: number, fn: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (!closed) fn();
    }, ms);
    timers.add(timer);
  };

  const handleLine = async (line: string) => {
    if (line.trim() === "") return;
    let data: unknown;
    try {
      data = JSON.parse(line);
    } catch {
      options.log(`hooks: skipped an inbox line that is not JSON: ${line.slice(0, 120)}`);
      return;
    }
    const entry = entrySchema.safeParse(data);
    if (!entry.success) {
      options.log(
        `hooks: skipped an inbox line (${entry.error.issues[0]?.message ?? "invalid"}): ${line.slice(0, 120)}`,
      );
      return;
    }
    const { harness: id, receivedAt, payload } = entry.data;
    const now = (options.now ?? Date.now)();
    if (!(now - Date.parse(receivedAt) < STALE_MS)) return;
    // Only built-in CLIs have hooks: a custom ACP agent runs inside Offrun, whose own stream notifies.
    const harness = BUILTIN_HARNESSES.find((h) => h.id === id);
    if (!harness?.hooks) {
      options.log(`hooks: skipped a payload from unknown harness '${id}'`);
      return;
    }
    const moment = await harness.hooks.signal(payload, receivedAt);
    if (!moment) return; // an event nobody needs to hear about (or not this CLI's shape)
    // Titled by harness id, like the transcript watcher and Offrun's own agents: one format in the notification centre.
    const signal: ExternalSignal = { ...moment, harness: harness.id, source: "hook" };
    await options.external.offer(signal);
  };

  /** Reads `target` (the inbox or its rotated copy) from the saved offset to its end; returns whether it found news. */
  const readFrom = async (target: string): Promise<boolean> => {
    // Another file than the one the offset belongs to, or one cut short, is read from its start.
    const position = tailPosition(state?.offset ?? 0, state?.ino);
    const read = await readAppendedLines(target, position);
    if (!read || position.ino === undefined) return false;
    // The saved offset stops before a line still being written: it is read whole next time.
    const next = { ino: position.ino, offset: position.offset - position.partial.length };
    if (read.lines.length === 0) {
      state = next;
      return false;
    }
    for (const line of read.lines) {
      await handleLine(line).catch((error: unknown) => options.log(`hooks: ${describeError(error)}`));
    }
    state = next;
    await saveState();
    return true;
  };

  const saveState = async () => {
    // A cache: failing to save costs at most a repeat after a restart, never the companion.
    await writeJsonAtomic(stateFile, state, { fsync: false }).catch((error: unknown) =>
      options.log(`hooks: ${describeError(error)}`),
    );
  };

  /** Renames a fully read inbox aside, and drains and deletes that copy after the grace period. */
  const maybeRotate = async () => {
    const stat = await fs.stat(file).catch(() => undefined);
    if (!stat || !state || state.ino !== stat.ino || state.offset !== stat.size || stat.size < rotateBytes) return;
    await fs.rename(file, rotated);
    // Until the copy is drained, the new inbox waits: one offset, one file at a time.
    rotating = true;
    later(ROTATE_GRACE_MS, () =>
      schedule(async () => {
        rotating = false;
        await drainRotated();
      }),
    );
  };

  const drainRotated = async () => {
    if (!(await fs.stat(rotated).catch(() => undefined))) return;
    await readFrom(rotated);
    await fs.rm(rotated, { force: true });
    state = undefined; // the next inbox is a new file, read from its start
    await fs.rm(stateFile, { force: true });
    await check();
  };

  const check = async () => {
    if (rotating) return; // drainRotated looks again when it is done
    // A rotation interrupted by a restart is finished first, so its lines come before newer ones.
    if (await fs.stat(rotated).catch(() => undefined)) return drainRotated();
    const news = await readFrom(file);
    if (news) later(RECHECK_MS, () => schedule(check));
    else await maybeRotate();
  };

  const schedule = (step: () => Promise<void>) => {
    queue = queue.then(step).catch((error: unknown) => options.log(`hooks: ${describeError(error)}`));
  };

  const watcher = chokidar.watch(path.dirname(file), { ignoreInitial: true, depth: 0 });
  const onChange = (changed: string) => {
    if (changed === file) schedule(check);
  };
  watcher.on("add", onChange).on("change", onChange);
  const ready = new Promise<void>((resolve) => watcher.once("ready", () => resolve())).then(() => {
    schedule(check);
    return queue;
  });

  return {
    ready,
    close: async () => {
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await watcher.close();
      await queue;
    },
  };
}
