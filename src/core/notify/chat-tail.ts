import fs from "node:fs/promises";
import path from "node:path";
import chokidar from "chokidar";
import { agentEventSchema, type AgentEvent } from "../foundation/events.js";
import { projectPaths } from "../foundation/paths.js";
import { makePrivateDir } from "../foundation/private-files.js";
import { readAppendedLines, tailPosition, type TailPosition } from "./tail.js";

/** How soon to look again after a read that found news (see onFile). */
const RECHECK_MS = 200;

/** One appended event, with whose it is. */
export interface TailedEvent {
  project: string;
  agent: string;
  event: AgentEvent;
}

export interface ChatFollower {
  /** Follows one more project's chats (a project added while running). */
  addProject(root: string): Promise<void>;
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
  project: string;
  agent: string;
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
  const projectOf = new Map<string, string>();
  const watcher = chokidar.watch([], { ignoreInitial: false, depth: 0 });

  const readAppended = async (file: string, state: FileState) => {
    // A truncated or replaced log starts over rather than reading from a stale offset.
    const read = await readAppendedLines(file, state.position);
    for (const line of read?.lines ?? []) emit(state, line);
  };

  const emit = (state: FileState, line: string) => {
    if (line.trim() === "") return;
    let data: unknown;
    try {
      data = JSON.parse(line);
    } catch {
      options.onProblem?.(`${state.project} ${state.agent}: a chat line is not JSON`);
      return;
    }
    const parsed = agentEventSchema.safeParse(data);
    if (parsed.success) options.onEvent({ project: state.project, agent: state.agent, event: parsed.data });
    else options.onProblem?.(`${state.project} ${state.agent}: ${parsed.error.issues[0]?.message ?? "invalid event"}`);
  };

  const track = (file: string, project: string, offset: number): FileState => {
    const state = {
      project,
      agent: path.basename(file, ".jsonl"),
      position: tailPosition(offset),
      queue: Promise.resolve(),
    };
    files.set(file, state);
    return state;
  };

  const timers = new Set<NodeJS.Timeout>();
  const onFile = async (file: string) => {
    if (!file.endsWith(".jsonl")) return;
    const project = projectOf.get(path.dirname(file));
    if (!project) return;
    const current = files.get(file) ?? track(file, project, 0);
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

  const addProject = async (root: string) => {
    const dir = projectPaths(root).chats;
    if (projectOf.has(dir)) return;
    // The folder belongs to the project's Offrun layout (ensureProjectDirs makes it too): a
    // project with no agent yet gets it now, so its first chat log is seen.
    await makePrivateDir(dir);
    projectOf.set(dir, root);
    // Logs there already: only what is appended from now on is news (unless asked to replay).
    if (!options.fromStart) {
      for (const name of await fs.readdir(dir)) {
        const file = path.join(dir, name);
        const size = (await fs.stat(file).catch(() => undefined))?.size;
        if (name.endsWith(".jsonl") && size !== undefined) track(file, root, size);
      }
    }
    watcher.add(dir);
  };
  for (const root of options.projects) await addProject(root);

  return {
    addProject,
    ready: options.projects.length === 0 ? Promise.resolve() : ready,
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await watcher.close();
    },
  };
}
