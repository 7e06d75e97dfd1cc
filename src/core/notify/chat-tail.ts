import fs from "node:fs/promises";
import path from "node:path";
import chokidar from "chokidar";
import { agentEventSchema, type AgentEvent } from "../foundation/events.js";
import { projectPaths } from "../foundation/paths.js";
import { makePrivateDir } from "../foundation/private-files.js";
import { readAppendedLines, tailPosition, type TailPosition } from "./tail.js";

/** How soon to look again after a read that found news (see onFile). */
const RECHECK_MS = 200;

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
}

/**
 * Follows `.offrun/chats/*.jsonl` of the given projects with chokidar, reading only what was
 * appended since the last read (from a byte offset; see tail.ts).
 */
export async function followChats(options: FollowOptions): Promise<ChatFollower> {
  const files = new Map<string, FileState>();
  const ownerIn = new Map<string, (file: string) => ChatOwner | undefined>();
  /** Where a log of no known owner ended when its folder was added: news starts there once it is known. */
  const endedAt = new Map<string, number>();
  const watcher = chokidar.watch([], { ignoreInitial: false, depth: 0 });

  const readAppended = async (file: string, state: FileState) => {
    // A truncated or replaced log starts over rather than reading from a stale offset.
    const read = await readAppendedLines(file, state.position);
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
    const state = { owner, position: tailPosition(offset), queue: Promise.resolve() };
    files.set(file, state);
    return state;
  };

  const timers = new Set<NodeJS.Timeout>();
  const onFile = async (file: string) => {
    if (!file.endsWith(".jsonl")) return;
    let current = files.get(file);
    if (!current) {
      const owner = ownerIn.get(path.dirname(file))?.(file);
      if (!owner) return;
      current = track(file, owner, endedAt.get(file) ?? 0);
      endedAt.delete(file);
    }
    const before = current.position.offset;
    current.queue = current.queue
      .then(() => readAppended(file, current))
      .catch((error: unknown) => {
        options.onProblem?.(`${file}: ${String(error)}`);
      });
    await current.queue;
    // chokidar drops a change whose mtime equals the last one (appends within one millisecond):
    // after a read that found news, look once more shortly after, so the last line is not stranded.
    if (current.position.offset !== before) {
      const timer = setTimeout(() => {
        timers.delete(timer);
        void onFile(file);
      }, RECHECK_MS);
      timers.add(timer);
    }
  };

  watcher.on("add", (file) => void onFile(file));
  watcher.on("change", (file) => void onFile(file));
  watcher.on("unlink", (file) => files.delete(file));
  const ready = new Promise<void>((resolve) => watcher.once("ready", () => resolve()));

  const addFolder = async (dir: string, ownerOf: (file: string) => ChatOwner | undefined) => {
    if (ownerIn.has(dir)) return;
    // A folder made now is watched from the start, so its first log is seen.
    await makePrivateDir(dir);
    ownerIn.set(dir, ownerOf);
    // Logs there already: only what is appended from now on is news (unless asked to replay).
    if (!options.fromStart) {
      for (const name of await fs.readdir(dir)) {
        const file = path.join(dir, name);
        const size = (await fs.stat(file).catch(() => undefined))?.size;
        if (!name.endsWith(".jsonl") || size === undefined) continue;
        const owner = ownerOf(file);
        if (owner) track(file, owner, size);
        else endedAt.set(file, size);
      }
    }
    watcher.add(dir);
  };
  // A project's folder belongs to its Offrun layout (ensureProjectDirs makes it too).
  const addProject = (root: string) =>
    addFolder(projectPaths(root).chats, (file) => ({ project: root, agent: path.basename(file, ".jsonl") }));
  for (const root of options.projects) await addProject(root);

  return {
    addProject,
    addFolder,
    ready: options.projects.length === 0 ? Promise.resolve() : ready,
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await watcher.close();
    },
  };
}
