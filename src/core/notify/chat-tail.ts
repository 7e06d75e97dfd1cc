import fs from "node:fs/promises";
import path from "node:path";
import { agentEventSchema, type AgentEvent } from "../foundation/events.js";
import { watchFolder } from "../foundation/folder-watch.js";
import { projectPaths } from "../foundation/paths.js";
import { makePrivateDir } from "../foundation/private-files.js";
import { readAppendedLines, tailPosition, type TailPosition } from "./tail.js";

/** Whose a chat log is: an agent of a project, on another machine when `host` says (core/remote). */
export interface ChatOwner {
  project: string;
  agent: string;
  host?: string;
}

/** One appended event, with whose it is. */
export interface TailedEvent extends ChatOwner {
  event: AgentEvent;
}

export interface ChatFollower {
  /** Follows one more project's chats (a project added while running). */
  addProject(root: string): Promise<void>;
  /**
   * Follows the logs of another folder, such as the local copies of a host's (companion/mirror.ts):
   * `ownerOf` says whose a file is, or undefined for one not known yet (looked at again on its next change).
   */
  addFolder(dir: string, ownerOf: (file: string) => ChatOwner | undefined): Promise<void>;
  /** Resolves once the folders given so far are watched. */
  ready: Promise<void>;
  close(): Promise<void>;
}

export interface FollowOptions {
  projects: string[];
  onEvent: (tailed: TailedEvent) => void;
  /** A line that is not an event (the file is left as it is). */
  onProblem?: (problem: string) => void;
  /** Replay what the logs already hold instead of starting at their end. */
  fromStart?: boolean;
}

interface FileState {
  owner: ChatOwner;
  position: TailPosition;
  /** Reads of one file run one after another, so no byte is read twice or out of order. */
  queue: Promise<void>;
  /** A read is queued and not begun: a burst of appends is one read. */
  waiting: boolean;
}

/**
 * Follows `.offrun/chats/*.jsonl` of the given projects, reading only what was appended since the
 * last read (from a byte offset; see tail.ts). One watch per folder, which names the log that
 * changed (folder-watch.ts): a new agent's log costs one read, however many logs the folder holds.
 */
export async function followChats(options: FollowOptions): Promise<ChatFollower> {
  const files = new Map<string, FileState>();
  const ownerIn = new Map<string, (file: string) => ChatOwner | undefined>();
  /** Where a log of no known owner ended when its folder was added: news starts there once it is known. */
  const endedAt = new Map<string, number>();
  const watchers = new Map<string, { close(): void }>();

  const readAppended = async (file: string, state: FileState) => {
    // A truncated or replaced log starts over rather than reading from a stale offset.
    const read = await readAppendedLines(file, state.position);
    // Gone: a log made again under its name is read from its start.
    if (!read) files.delete(file);
    for (const line of read?.lines ?? []) emit(state, line);
  };

  const emit = (state: FileState, line: string) => {
    if (line.trim() === "") return;
    const { owner } = state;
    const who = `${owner.host ? `${owner.host}:` : ""}${owner.project} ${owner.agent}`;
    let data: unknown;
    try {
      data = JSON.parse(line);
    } catch {
      options.onProblem?.(`${who}: a chat line is not JSON`);
      return;
    }
    const parsed = agentEventSchema.safeParse(data);
    if (parsed.success) options.onEvent({ ...owner, event: parsed.data });
    else options.onProblem?.(`${who}: ${parsed.error.issues[0]?.message ?? "invalid event"}`);
  };

  const track = (file: string, owner: ChatOwner, offset: number): FileState => {
    const state = { owner, position: tailPosition(offset), queue: Promise.resolve(), waiting: false };
    files.set(file, state);
    return state;
  };

  const onFile = async (file: string) => {
    if (!file.endsWith(".jsonl")) return;
    let current = files.get(file);
    if (!current) {
      const owner = ownerIn.get(path.dirname(file))?.(file);
      if (!owner) return;
      current = track(file, owner, endedAt.get(file) ?? 0);
      endedAt.delete(file);
    }
    if (current.waiting) return;
    const state = current;
    state.waiting = true;
    state.queue = state.queue
      .then(() => {
        state.waiting = false;
        return readAppended(file, state);
      })
      .catch((error: unknown) => {
        options.onProblem?.(`${file}: ${String(error)}`);
      });
    await state.queue;
  };

  const addFolder = async (dir: string, ownerOf: (file: string) => ChatOwner | undefined) => {
    if (ownerIn.has(dir)) return;
    // A folder made now is watched from the start, so its first log is seen.
    await makePrivateDir(dir);
    ownerIn.set(dir, ownerOf);
    // Watched first, listed after: a log made in between is in the listing or comes as news. News
    // that comes before the listing is done waits for it, so no log is taken as new and replayed.
    let early: Set<string> | undefined = new Set();
    const look = (file: string) => (early ? early.add(file) : void onFile(file));
    const watcher = watchFolder(
      dir,
      (name) => {
        if (name) look(path.join(dir, name));
        // The platform did not say which: look at every log there.
        else void listLogs(dir).then((logs) => logs.forEach(look));
      },
      { log: (line) => options.onProblem?.(line), onClosed: () => watchers.delete(dir) },
    );
    if (watcher) watchers.set(dir, watcher);
    const logs = await listLogs(dir);
    // Logs there already: only what is appended from now on is news (unless asked to replay).
    if (!options.fromStart) {
      for (const file of logs) {
        const size = (await fs.stat(file).catch(() => undefined))?.size;
        if (size === undefined) continue;
        const owner = ownerOf(file);
        if (owner) track(file, owner, size);
        else endedAt.set(file, size);
      }
    }
    // What was appended since the listing (or everything, replaying), and logs made meanwhile.
    const pending = new Set([...logs, ...early]);
    early = undefined;
    await Promise.all([...pending].map((file) => onFile(file)));
  };
  // A project's folder belongs to its Offrun layout (ensureProjectDirs makes it too).
  const addProject = (root: string) =>
    addFolder(projectPaths(root).chats, (file) => ({ project: root, agent: path.basename(file, ".jsonl") }));
  for (const root of options.projects) await addProject(root);

  return {
    addProject,
    addFolder,
    ready: Promise.resolve(),
    close: async () => {
      for (const watcher of watchers.values()) watcher.close();
      watchers.clear();
      await Promise.all([...files.values()].map((state) => state.queue));
    },
  };
}

/** The chat logs directly in `dir`. */
async function listLogs(dir: string): Promise<string[]> {
  const names = await fs.readdir(dir).catch(() => []);
  return names.filter((name) => name.endsWith(".jsonl")).map((name) => path.join(dir, name));
}
