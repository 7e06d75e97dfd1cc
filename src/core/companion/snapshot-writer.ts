import { locateBinary } from "../foundation/binaries.js";
import { listLogins } from "../logins/store.js";
import { listAgents, readChat } from "../records/records.js";
import { describeError } from "../foundation/errors.js";
import type { AgentEvent } from "../foundation/events.js";
import type { AgentRecord } from "../foundation/model.js";
import { cut } from "../notify/classify.js";
import { followChats, type ChatFollower } from "../notify/chat-tail.js";
import type { NotificationRecord } from "../notify/notifier.js";
import { projectPaths, userPaths } from "../foundation/paths.js";
import { makePrivateDir } from "../foundation/private-files.js";
import { watchFile, watchFolder } from "../foundation/folder-watch.js";
import { knownProjects } from "../foundation/project.js";
import { cachedLoginQuota } from "../quota/pipeline.js";
import { cachedSignIns, signInKey, type SignInEntry } from "../logins/sign-in.js";
import { listHarnesses } from "../../harnesses/registry.js";
import { ChatFactsBook, type ChatFacts } from "./chat-facts.js";
import {
  countStatuses,
  readSnapshotExplained,
  type Snapshot,
  type SnapshotAgent,
  type SnapshotQuota,
} from "./snapshot.js";
import { reportStateProblem } from "../foundation/state-problems.js";
import { writeJsonAtomic } from "../foundation/store.js";

/** Changes that come together (a turn's burst of chat lines) make one write. */
const DEBOUNCE_MS = 150;
/**
 * Writes follow their sources (chat logs, records, the quota cache, notifications); this rare check
 * only catches a change a file watcher missed, and writes nothing when the state is the same.
 */
const SAFETY_NET_MS = 5 * 60_000;
const LAST_WORDS_MAX = 300;
const NOTIFICATIONS_KEPT = 20;

export interface SnapshotWriterOptions {
  companion: { pid: number; version: string; startedAt: string };
  /** The notifications offered so far, newest first (Notifier.recent). */
  notifications: () => NotificationRecord[];
  /** Tells of each new notification (Notifier.subscribe); returns the unsubscribe. */
  subscribe?: (listener: () => void) => () => void;
  log: (line: string) => void;
  projects?: () => Promise<string[]>;
  /** Other machines' agents and logins, as last heard (core/companion/follow.ts). */
  remote?: () => Promise<{ agents: SnapshotAgent[]; quota: SnapshotQuota[] }>;
  /** Once per burst of changes, as its write begins (change-beacon.ts). */
  onChange?: () => void;
  /**
   * After a write in which an agent started needing the user (one that did not before): the menu
   * bar, which reads state.json on an interval, is asked to read it now (menu-bar-refresh.ts).
   */
  onNeedsYou?: () => void;
  debounceMs?: number;
  safetyNetMs?: number;
}

export interface SnapshotWriter {
  /** Resolves once the first snapshot is written and every source is watched. */
  ready: Promise<void>;
  /** Asks for a write (debounced). */
  changed(): void;
  close(): Promise<void>;
}

/**
 * Keeps `~/.offrun/state.json` current: rewritten (debounced) when a chat log grows, an agent
 * record or the quota cache changes, or a notification is offered (pushed by the notifier: an
 * idle companion does no work at all, save a rare safety check). Agent records and the quota
 * cache are small and re-read on each write; chat logs are read whole once at start, then only
 * their appended events are followed.
 */
export async function writeSnapshots(options: SnapshotWriterOptions): Promise<SnapshotWriter> {
  const projectsOf = options.projects ?? knownProjects;
  // A damaged state.json is written over below: said first (state-problems.ts), not in silence.
  const { problem } = await readSnapshotExplained();
  if (problem) {
    const message = `${problem.replace(/ Restart the companion.*$/, "")} The companion wrote it afresh, from the agents' records and logs: nothing is left to do.`;
    reportStateProblem({ file: userPaths().state, message, repaired: true });
  }
  const facts = new ChatFactsBook();
  const keyOf = (project: string, agent: string) => `${project}\u0000${agent}`;
  let timer: NodeJS.Timeout | undefined;
  let writing = Promise.resolve();
  let closed = false;

  let lastWritten: string | undefined;
  // The first write's waiting agents are not news: they waited before this companion started.
  let waiting: Set<string> | undefined;
  const write = async (onlyIfChanged = false) => {
    const snapshot = await build();
    const content = JSON.stringify({ ...snapshot, writtenAt: "" });
    if (onlyIfChanged && content === lastWritten) return;
    await writeJsonAtomic(userPaths().state, snapshot, { fsync: false });
    lastWritten = content;
    const now = new Set(
      snapshot.agents
        .filter((a) => a.status === "needs-you")
        .map((a) => `${a.host ?? ""}\u0000${a.project}\u0000${a.name}`),
    );
    const started = waiting !== undefined && [...now].some((key) => !waiting!.has(key));
    waiting = now;
    if (started) options.onNeedsYou?.();
  };
  const changed = () => {
    if (closed || timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      options.onChange?.();
      // A full disk is said in the log; the next change tries again.
      writing = writing.then(() => write()).catch((error: unknown) => options.log(`snapshot: ${describeError(error)}`));
    }, options.debounceMs ?? DEBOUNCE_MS);
  };

  const build = async (): Promise<Snapshot> => {
    const projects = await projectsOf().catch(() => []);
    const agents: SnapshotAgent[] = [];
    for (const project of projects) {
      for (const record of await listAgents(project).catch(() => [])) {
        agents.push(await describeAgent(record));
      }
    }
    const remote = (await options.remote?.().catch(() => undefined)) ?? { agents: [], quota: [] };
    agents.push(...remote.agents);
    return {
      version: 1,
      writtenAt: new Date().toISOString(),
      companion: options.companion,
      counts: countStatuses(agents),
      agents,
      quota: [...(await snapshotQuotas()), ...remote.quota],
      notifications: options
        .notifications()
        .slice(0, NOTIFICATIONS_KEPT)
        .map(({ kind, title, body, project, agent, host, at, outcome, link }) => ({
          kind,
          title,
          body,
          project,
          agent,
          ...(host ? { host } : {}),
          at,
          outcome,
          link,
        })),
    };
  };

  const describeAgent = async (record: AgentRecord): Promise<SnapshotAgent> => {
    const key = keyOf(record.project, record.name);
    if (!facts.has(key)) {
      // First sight of this agent: its log once; from then on only what is appended.
      facts.learn(key, record, (await readChat(record.project, record.name).catch(() => ({ entries: [] }))).entries);
    }
    return snapshotAgent(record, facts.get(key) ?? { pending: [] });
  };

  const onEvent = (project: string, agent: string, event: AgentEvent) => {
    // An agent not yet described is read whole at the next write.
    facts.apply(keyOf(project, agent), event);
    changed();
  };

  const follower: ChatFollower = await followChats({
    projects: await projectsOf().catch(() => []),
    onEvent: ({ project, agent, event }) => onEvent(project, agent, event),
  });
  // The quota and sign-in caches, projects.json and every project's records: any change means a
  // new snapshot. One watch per folder, which names the file written (folder-watch.ts).
  const watchers: { close(): void }[] = [];
  const watched = (watcher: { close(): void } | undefined) => watcher && watchers.push(watcher);
  const log = { log: (line: string) => options.log(`snapshot: ${line}`) };
  // A folder must be there to be watched.
  await makePrivateDir(userPaths().cache);
  // The cache folder also holds offsets of other watchers: only the quota and sign-in caches are news here.
  const news = new Set(["quota.json", "sign-in.json"]);
  watched(
    watchFolder(userPaths().cache, (name) => (name === undefined || news.has(name) ? changed() : undefined), log),
  );
  const recordFolders = new Map<string, { close(): void }>();
  const watchProject = async (root: string) => {
    const dir = projectPaths(root).agents;
    if (recordFolders.has(dir)) return;
    // Part of the project's Offrun layout (ensureProjectDirs makes it too): made now, so the first
    // record of a project without agents is seen.
    await makePrivateDir(dir).catch(() => undefined);
    const watcher = watchFolder(dir, (name) => (name === undefined || name.endsWith(".json") ? changed() : undefined), {
      ...log,
      onClosed: () => recordFolders.delete(dir),
    });
    if (watcher) recordFolders.set(dir, watcher);
  };
  for (const root of await projectsOf().catch(() => [])) await watchProject(root);
  const projectsChanged = () => {
    changed();
    void projectsOf()
      .then(async (roots) => {
        for (const root of roots) {
          await watchProject(root);
          await follower.addProject(root);
        }
      })
      .catch((error: unknown) => options.log(`snapshot: ${describeError(error)}`));
  };
  watched(watchFile(userPaths().projects, projectsChanged, log));

  const unsubscribe = options.subscribe?.(changed);
  const safetyNet = setInterval(() => {
    if (closed || timer) return;
    writing = writing
      .then(() => write(true))
      .catch((error: unknown) => options.log(`snapshot: ${describeError(error)}`));
  }, options.safetyNetMs ?? SAFETY_NET_MS);
  safetyNet.unref();

  const ready = (async () => {
    await follower.ready;
    writing = writing.then(() => write()).catch((error: unknown) => options.log(`snapshot: ${describeError(error)}`));
    await writing;
  })();

  return {
    ready,
    changed,
    close: async () => {
      closed = true;
      clearInterval(safetyNet);
      unsubscribe?.();
      if (timer) clearTimeout(timer);
      await follower.close();
      for (const watcher of [...watchers, ...recordFolders.values()]) watcher.close();
      await writing;
    },
  };
}

/** One agent as state.json lists it, from its record and what its log says; `host` for another machine's. */
export function snapshotAgent(record: AgentRecord, facts: ChatFacts, host?: string): SnapshotAgent {
  return {
    ...(host ? { host } : {}),
    project: record.project,
    name: record.name,
    harness: record.harness,
    account: record.account,
    mode: record.mode,
    status: record.status,
    turns: record.turns,
    ...(record.turnStartedAt ? { turnStartedAt: record.turnStartedAt } : {}),
    ...(record.resume ? { resume: { at: record.resume.at, account: record.resume.account } } : {}),
    updatedAt: record.updatedAt,
    branch: record.branch,
    worktree: record.worktree,
    port: record.port,
    ...(facts.lastWords ? { lastWords: cut(facts.lastWords, LAST_WORDS_MAX) } : {}),
    pending: record.status === "needs-you" ? facts.pending : [],
  };
}

/**
 * Every login's quota from the cache alone (no source is asked: that is the quota watcher's job),
 * with its cached sign-in state and its CLI's quota coverage.
 */
/** Every login's cached quota and sign-in, as state.json lists them. */
export async function snapshotQuotas(): Promise<SnapshotQuota[]> {
  const harnesses = await listHarnesses({ tolerant: true });
  const logins = await listLogins(harnesses).catch(() => []);
  const signIns = await cachedSignIns(logins).catch(() => new Map<string, SignInEntry>());
  const now = new Date();
  const result: SnapshotQuota[] = [];
  const installed = await installedHarnesses(harnesses);
  for (const login of logins) {
    const q = await cachedLoginQuota(login, now).catch(() => undefined);
    if (!q) continue;
    const signIn = signIns.get(signInKey(login));
    const coverage = harnesses.find((h) => h.id === login.harness)?.quotaCoverage;
    const row: SnapshotQuota = {
      ...q,
      installed: installed.has(login.harness),
      ...(signIn ? { signIn: { state: signIn.state, ...(signIn.note ? { note: signIn.note } : {}) } } : {}),
      ...(coverage ? { coverage } : {}),
    };
    delete row.attempts; // the menu bar never shows each source tried
    result.push(row);
  }
  return result;
}

/** Whether each CLI's binary is here, looked up at most once a minute (a PATH walk per write adds up). */
let installedSeen: { at: number; ids: Set<string> } | undefined;
const INSTALLED_FRESH_MS = 60_000;

async function installedHarnesses(harnesses: { id: string; binaryName: string }[]): Promise<Set<string>> {
  if (installedSeen && Date.now() - installedSeen.at < INSTALLED_FRESH_MS) return installedSeen.ids;
  const found = await Promise.all(
    harnesses.map(async (h) => ((await locateBinary(h.id, h.binaryName).catch(() => undefined)) ? h.id : undefined)),
  );
  installedSeen = { at: Date.now(), ids: new Set(found.filter((id): id is string => id !== undefined)) };
  return installedSeen.ids;
}
