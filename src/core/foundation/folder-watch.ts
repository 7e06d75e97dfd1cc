import fs from "node:fs";
import path from "node:path";
import { describeError } from "./errors.js";

/**
 * One folder's `fs.watch`: the system's own word (inotify, FSEvents) on which entry of the folder
 * was made, replaced, appended to or removed. For the companion's folders of many small files
 * (agent records, chat logs): chokidar lists a folder again and stats every entry in it on each
 * change, so every record write of a start made the companion stat every agent of its project, and
 * twice more for the new chat log (measured in a project of 233 agents: 222 ms of a start's
 * companion work before its CLI's spawn, 138 ms with these watches).
 *
 * `onEntry` gets the entry's name, or undefined where the platform does not say which (look at
 * them all). Undefined when the folder cannot be watched: a folder that is gone is not said;
 * anything else (the system's limit of watches) goes to `log`, and so does a watch that fails
 * later, which is then closed and `onClosed` told.
 */
export function watchFolder(
  dir: string,
  onEntry: (name: string | undefined) => void,
  options: { log: (line: string) => void; onClosed?: () => void },
): fs.FSWatcher | undefined {
  let watcher: fs.FSWatcher;
  try {
    watcher = fs.watch(dir, { persistent: true }, (_event, name) => onEntry(name ?? undefined));
  } catch (error) {
    if (!isMissing(error)) options.log(`watching ${dir}: ${describeError(error)}`);
    return undefined;
  }
  watcher.on("error", (error) => {
    if (!isMissing(error)) options.log(`watching ${dir}: ${describeError(error)}`);
    watcher.close();
    options.onClosed?.();
  });
  return watcher;
}

/** A folder that is not there (any more), or a path through a file. */
function isMissing(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "ENOENT" || code === "ENOTDIR";
}

/**
 * One file, through the watch of its folder: it is seen made, replaced (an atomic write renames
 * over it) or removed, and a file that is not there yet is seen when it comes. chokidar, used here
 * before for the files in ~/.offrun, listed and statted the whole folder each time anything in it
 * changed, which the companion's own log and state.json do many times a second while agents work.
 */
export function watchFile(
  file: string,
  onChange: () => void,
  options: { log: (line: string) => void },
): fs.FSWatcher | undefined {
  const name = path.basename(file);
  return watchFolder(
    path.dirname(file),
    (changed) => (changed === undefined || changed === name ? onChange() : undefined),
    options,
  );
}
