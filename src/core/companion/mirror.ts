import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { parseEventLine, type AgentEvent } from "../foundation/events.js";
import { describeError, isOffrunError, OffrunError } from "../foundation/errors.js";
import { agentNameProblem } from "../foundation/names.js";
import { offrunHome, userPaths } from "../foundation/paths.js";
import { makePrivateDir, PRIVATE_FILE_MODE } from "../foundation/private-files.js";
import type { AgentRecord } from "../foundation/model.js";
import { fileLines } from "../foundation/lines.js";
import { readJsonFile, writeJsonAtomic } from "../foundation/store.js";
import { ChatFactsBook, type ChatFacts } from "./chat-facts.js";
import { bytesIn, copyBudget, megabytes, writeCopies, type CopyBudget } from "./copy-budget.js";
import { agentsListedSchema, viewReplies, type AgentsListed, type HostCopies } from "../protocol/protocol-views.js";
import * as z from "zod";
import type { HostLink } from "../remote/link.js";

/** How often a host is asked what grew when it cannot say when something changed (an older offrun there, a failed wait). */
export const FOLLOW_EVERY_MS = 1_000;
/** How long one `changes.wait` is held by the host; after it, one round runs anyway (a change its watchers missed). */
const CHANGES_WAIT_MS = 25_000;

/** `~/.offrun/hosts/<host>/`: the local copies of a host's chat logs. */
export function hostDir(host: string, env: NodeJS.ProcessEnv = process.env): string {
  return path.join(userPaths(offrunHome(env)).home, "hosts", host);
}

/** The local copy of one remote agent's chat log: byte for byte the remote file's first `size` bytes. */
export function mirrorFile(host: string, project: string, agent: string, env: NodeJS.ProcessEnv = process.env): string {
  // Records are checked when they arrive; this is the last place a hostile name could become a path.
  const problem = agentNameProblem(agent);
  if (problem) throw new OffrunError("invalid_input", `host ${host} named an agent '${agent}': ${problem}.`);
  return path.join(hostDir(host, env), "chats", `${projectTag(project)}-${agent}.jsonl`);
}

/** A host's project as the names of its copies start: the project's path is the host's, of any length. */
export function projectTag(project: string): string {
  return createHash("sha256").update(project).digest("hex").slice(0, 12);
}

/** The project tag and agent a copy is of, from its file name (mirrorFile's). */
export function copiedAgent(file: string): { tag: string; agent: string } | undefined {
  const match = /^([0-9a-f]{12})-(.+)\.jsonl$/.exec(path.basename(file));
  return match ? { tag: match[1]!, agent: match[2]! } : undefined;
}

const stateSchema = z.object({ followingSince: z.string() });

/** One new event of a remote agent, for the notifier. */
export interface MirroredEvent {
  host: string;
  project: string;
  agent: string;
  harness: string;
  event: AgentEvent;
}

/**
 * Keeps a local copy of every chat log on a host, read by offset: the copy's size is the offset,
 * so what was copied before a dropped connection (or a restart of either companion) is never read
 * again and nothing after it is skipped: each event reaches `onEvent` once. Events older than the
 * first time this host was followed are history, copied without telling anyone.
 */
export class ChatMirror {
  private following = false;
  private closed = false;
  /** The host answers `changes.wait`; false once it said it does not know the request. */
  private hostWaits = true;
  /** Ends the pause between rounds early (a new connection, close). */
  private wake: (() => void) | undefined;
  /** One round at a time: the follow loop's, and those owed after a forwarded request. */
  private rounds: Promise<void> = Promise.resolve();
  private since: string | undefined;
  /** The host's last answer to agents.list. */
  listing: AgentsListed | undefined;
  /** The last round went through: `listing` is what the host said then. */
  private listed = false;
  /** A changes.wait asked after the listing was taken is held by the host: nothing changed there since. */
  private waiting = false;
  /** Requests forwarded to the host, each until a round that began after it ended. */
  private forwarded = 0;
  /** What each copied log says (last words, what waits), kept as lines are copied: state.json reads no log. */
  private readonly facts = new ChatFactsBook();
  private readonly overBudgetSaid = new Map<string, string>();
  /** The last whole round's account of the copies against their budgets; undefined before one. */
  copies: HostCopies | undefined;

  constructor(
    private readonly link: HostLink,
    private readonly options: {
      onEvent: (event: MirroredEvent) => void;
      log: (line: string) => void;
      /** The listing changed, or a log grew: what the snapshot shows of the host is out of date. */
      onChange?: () => void;
    },
  ) {}

  /**
   * Follows until closed: the host's token (asked without one, it answers at once), a round, then
   * the host's next change (`changes.wait`, held by the host until something changes there), a
   * round again, and so on. Called again on each new connection.
   */
  follow(): void {
    // A new connection may be to an updated offrun, and is caught up with at once.
    this.hostWaits = true;
    this.wake?.();
    if (this.following || this.closed) return;
    this.following = true;
    void (async () => {
      let token: string | undefined;
      while (!this.closed) {
        token = await this.nextChange(token);
        if (this.closed) break;
        await this.round();
      }
    })();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.wake?.();
    await this.rounds;
  }

  /**
   * The host's agents without asking it: while the host holds a changes.wait asked after this
   * listing was taken (it answers that wait at its next change, within a fraction of a second) and
   * no request forwarded to it is owed a round. Else undefined: ask the host. An `offrun ls` with
   * hosts then waits for no host that the mirror follows.
   */
  currentListing(): AgentsListed | undefined {
    const current = this.waiting && this.listed && this.forwarded === 0 && this.link.state.state === "connected";
    return current ? this.listing : undefined;
  }

  /**
   * Before a request is forwarded to the host (it may start, stop or change an agent there): the
   * listing is not current until a round that begins once the request ended. Call what it returns
   * then, answered or not.
   */
  forwarding(): () => void {
    this.forwarded += 1;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      void this.round().finally(() => (this.forwarded -= 1));
    };
  }

  /** Runs a round after the ones before it; what it could not do is logged, and the listing is no longer current. */
  private round(): Promise<void> {
    const run = this.rounds.then(() =>
      this.catchUp().then(
        () => void (this.listed = true),
        (error: unknown) => {
          this.listed = false;
          if (this.link.state.state === "connected")
            this.options.log(`host ${this.link.host.name}: ${describeError(error)}`);
        },
      ),
    );
    this.rounds = run;
    return run;
  }

  /** The host's token after its next change; undefined after a plain pause (no wait, or a failed one). */
  private async nextChange(token: string | undefined): Promise<string | undefined> {
    if (this.hostWaits && this.link.state.state === "connected") {
      try {
        const params = { ...(token === undefined ? {} : { after: token }), timeoutMs: CHANGES_WAIT_MS };
        // Given a token, the listing of the round before is what the host had then.
        this.waiting = token !== undefined;
        const answer = await this.link.call("changes.wait", params, CHANGES_WAIT_MS + 10_000);
        return viewReplies["changes.wait"].parse(answer).token;
      } catch (error) {
        // An offrun there from before changes.wait answers "unhandled method": a round now, then one every second.
        if (isOffrunError(error, "invalid_input")) {
          this.hostWaits = false;
          return undefined;
        }
      } finally {
        this.waiting = false;
      }
    }
    if (!this.closed) {
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          this.wake = undefined;
          resolve();
        };
        const timer = setTimeout(wake, FOLLOW_EVERY_MS);
        this.wake = wake;
      });
    }
    return undefined;
  }

  /** One round: what every agent's log holds beyond the copy, appended to it. */
  private async catchUp(): Promise<void> {
    if (this.link.state.state !== "connected") return;
    const since = await this.followingSince();
    const listing = agentsListedSchema.parse(await this.link.call("agents.list", {}));
    const budget = copyBudget(this.link.host);
    const round: Round = { budget, used: await bytesIn(path.join(hostDir(this.link.host.name), "chats")), refused: [] };
    let grew = false;
    for (const project of listing.projects) {
      for (const { record, chatBytes } of project.agents) {
        grew = (await this.copy(project.root, record, chatBytes, since, round)) || grew;
      }
    }
    const changed = JSON.stringify(listing.projects) !== JSON.stringify(this.listing?.projects);
    this.listing = listing;
    const refusedBefore = this.copies && JSON.stringify([this.copies.refused, this.copies.folderBudgetBytes]);
    this.copies = {
      usedBytes: round.used,
      copyBudgetBytes: budget.copyBytes,
      folderBudgetBytes: budget.folderBytes,
      refused: round.refused,
    };
    // Kept on disk when what was refused changed: the faces name it after a restart, or while the host is down.
    const refusedChanged = refusedBefore !== JSON.stringify([round.refused, budget.folderBytes]);
    if (refusedChanged) await writeCopies(hostDir(this.link.host.name), this.copies);
    if (changed || grew || refusedChanged) this.options.onChange?.();
  }

  /** The last words and what waits on the user, from the copy of an agent's log. */
  chatFacts(project: string, agent: string): ChatFacts {
    return this.facts.get(factsKey(project, agent)) ?? { pending: [] };
  }

  /**
   * Copies what the host's log holds beyond the copy, within the budgets; true when something was.
   * What one copy may not hold, or what would take the host's copies over theirs, is not copied
   * and is named in `round.refused`; what was copied before stays.
   */
  private async copy(
    project: string,
    record: AgentRecord,
    remoteSize: number,
    since: string,
    round: Round,
  ): Promise<boolean> {
    const { name: agent, harness } = record;
    const file = mirrorFile(this.link.host.name, project, agent);
    const key = factsKey(project, agent);
    let size = await sizeOf(file);
    if (!Number.isSafeInteger(remoteSize) || remoteSize < 0) return false;
    if (remoteSize < size) {
      // The host's log is shorter than the copy: it was replaced (a discard, a new agent of the same name).
      // One copy set aside per agent: the one before it goes, so a host that says so every round fills nothing.
      for (const old of await setAside(file)) {
        round.used -= (await fs.stat(old).catch(() => undefined))?.size ?? 0;
        await fs.rm(old, { force: true });
      }
      await fs.rename(file, `${file}.replaced-${Date.now()}`);
      this.facts.forget(key);
      size = 0;
    }
    // A host's word is input: a log it says is larger than any real one, or more than the host's
    // copies may hold together, is not copied past the budget.
    let wanted = Math.min(remoteSize, round.budget.copyBytes);
    const overFolder = wanted > size && round.used + (wanted - size) > round.budget.folderBytes;
    if (overFolder) wanted = size;
    if (remoteSize > round.budget.copyBytes || overFolder) {
      const refusal = {
        project,
        agent,
        budget: remoteSize > round.budget.copyBytes ? ("copy" as const) : ("folder" as const),
        logBytes: remoteSize,
        copiedBytes: size,
      };
      round.refused.push(refusal);
      this.overBudget(key, refusalText(refusal, round.budget));
    }
    // First sight of this copy (at start, or after a replacement): read once as a stream; then line by line.
    if (!this.facts.has(key)) await this.facts.learnFrom(key, record, copiedEvents(file, size));
    const start = size;
    while (size < wanted) {
      const read = viewReplies["chat.read"].parse(
        await this.link.call("chat.read", { project, name: agent, offset: size }),
      );
      if (read.next <= size) break; // a line still being written: next round
      // The copy advances by what arrived, and only up to the size the host itself stated: a reply
      // whose offset does not match its lines, or that goes past that size, ends the round.
      const bytes = read.lines.reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0);
      if (read.next !== size + bytes || read.next > remoteSize) {
        throw new Error(
          `${agent} in ${project}: chat.read from offset ${size} answered ${bytes} bytes and next ${read.next}, with the log at ${remoteSize} bytes; not copied`,
        );
      }
      // Whole lines up to the copy's budget.
      const lines = linesWithin(read.lines, wanted - size);
      if (lines.length === 0) break;
      const text = lines.map((line) => `${line}\n`).join("");
      await makePrivateDir(path.dirname(file));
      await fs.appendFile(file, text, { mode: PRIVATE_FILE_MODE });
      size += Buffer.byteLength(text);
      round.used += Buffer.byteLength(text);
      for (const line of lines) {
        const event = parseEventLine(line);
        if (!event) continue;
        this.facts.apply(key, event);
        if (event.at >= since) this.options.onEvent({ host: this.link.host.name, project, agent, harness, event });
      }
    }
    return size !== start;
  }

  /** Said once per agent and size in the companion's log. */
  private overBudget(key: string, why: string): void {
    if (this.overBudgetSaid.get(key) === why) return;
    this.overBudgetSaid.set(key, why);
    this.options.log(`host ${this.link.host.name}: ${why}`);
  }

  private async followingSince(): Promise<string> {
    if (this.since) return this.since;
    const file = path.join(hostDir(this.link.host.name), "follow.json");
    const state = await readJsonFile(file, stateSchema).catch(() => undefined);
    this.since = state?.followingSince ?? new Date().toISOString();
    if (!state) await writeJsonAtomic(file, { followingSince: this.since });
    return this.since;
  }
}

/** One round's account of the host's copies: its budgets, what they hold so far, what was refused. */
interface Round {
  budget: CopyBudget;
  used: number;
  refused: HostCopies["refused"];
}

/** For the companion's log. */
function refusalText(refusal: HostCopies["refused"][number], budget: CopyBudget): string {
  const what = `${refusal.agent} in ${refusal.project}: its log is ${refusal.logBytes} bytes, ${refusal.copiedBytes} copied`;
  return refusal.budget === "copy"
    ? `${what}; over the ${budget.copyBytes} a copy may hold`
    : `${what}; the rest would take the host's copies over the ${budget.folderBytes} they may hold (${megabytes(budget.folderBytes)}), not copied`;
}

/** The leading lines of `lines` whose bytes (with their newlines) fit in `room`. */
function linesWithin(lines: string[], room: number): string[] {
  let used = 0;
  let count = 0;
  for (const line of lines) {
    used += Buffer.byteLength(line) + 1;
    if (used > room) break;
    count += 1;
  }
  return count === lines.length ? lines : lines.slice(0, count);
}

/** The events of a copy's first `size` bytes, read as a stream: a copy may hold hundreds of MB. */
async function* copiedEvents(file: string, size: number): AsyncGenerator<AgentEvent> {
  for await (const line of fileLines(file, size)) {
    const event = parseEventLine(line);
    if (event) yield event;
  }
}

/** The copies of `file` set aside before (`<file>.replaced-<ms>`). */
async function setAside(file: string): Promise<string[]> {
  const prefix = `${path.basename(file)}.replaced-`;
  const names = await fs.readdir(path.dirname(file)).catch(() => []);
  return names.filter((name) => name.startsWith(prefix)).map((name) => path.join(path.dirname(file), name));
}

/** A copy cut short by a crash mid-append ends in half a line: it is trimmed to the last whole one. */
async function sizeOf(file: string): Promise<number> {
  const stat = await fs.stat(file).catch(() => undefined);
  if (!stat || stat.size === 0) return 0;
  const handle = await fs.open(file, "r+");
  try {
    const last = Buffer.alloc(1);
    await handle.read(last, 0, 1, stat.size - 1);
    if (last[0] === 0x0a) return stat.size;
    const text = await fs.readFile(file);
    const end = text.lastIndexOf(0x0a) + 1;
    await handle.truncate(end);
    return end;
  } finally {
    await handle.close();
  }
}

const factsKey = (project: string, agent: string) => `${project}\u0000${agent}`;
