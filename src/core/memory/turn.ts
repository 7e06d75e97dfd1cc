import { listAgents } from "../records/records.js";
import { describeError } from "../foundation/errors.js";
import type { EventDraft } from "../foundation/events.js";
import { ensureMemory, isOwnMemoryFile, memoryBriefing, ownerOf, starterText } from "./files.js";
import { unifiedDiff } from "./diff.js";
import {
  excludeSnapshots,
  readBaseline,
  readBlob as readStoredBlob,
  scanMemory,
  updateRecorded,
  writeBaseline,
  type LostSnapshot,
  type MemoryState,
} from "./snapshots.js";
import { causeOf } from "../foundation/disk-full.js";
import type { AgentRecord } from "../foundation/model.js";

type MemoryChangeDraft = Extract<EventDraft, { type: "memory_change" }>;

/** The memory side of one turn: what to tell the agent first, where it may write, and what it changed. */
export interface MemoryTurn {
  /** Goes before the user's message at the start of a session; absent when the session goes on. */
  briefing?: string;
  /** The one folder the agent may write besides its worktree: its own memory. */
  addDirs: string[];
  /** Warnings for the turn's log: snapshots of the memory as the turn found it that a full disk lost. */
  lost: string[];
  /** After the turn: each changed memory file becomes a memory_change event (and, in Planner, a warning when not allowed). */
  finish(log: (event: EventDraft) => Promise<void>): Promise<void>;
}

/**
 * Before a turn: creates missing memory files, snapshots the memory as the turn finds it, and
 * decides whether this is a new session for the agent (no session to resume, or another
 * harness or login than the one it was last briefed on), which gets the memory briefing.
 * A new agent's first turn is opened while git checks its worktree out (agents/setup.ts).
 */
export async function openMemoryTurn(
  record: AgentRecord,
  turn: number,
  resume: boolean,
  /** False for a Planner whose CLI cannot write even its memory folder (Harness.plannerWritesNothing). */
  canWrite = true,
): Promise<MemoryTurn> {
  const root = record.project;
  // All of this is on the way from `offrun start` to the CLI's spawn: independent steps run together.
  const [files, previous] = await Promise.all([
    ensureMemory(root, record.name),
    readBaseline(root, record.name),
    excludeSnapshots(root),
  ]);
  const briefed = previous?.briefed;
  const fresh = !resume || briefed?.harness !== record.harness || briefed.account !== record.account;
  const takenAt = new Date().toISOString();
  const lostBefore: LostSnapshot[] = [];
  const baseline = await scanMemory(root, lostBefore);
  const [briefing] = await Promise.all([
    fresh ? memoryBriefing(root, record.name, canWrite) : undefined,
    writeBaseline(root, record.name, {
      version: 1,
      takenAt,
      files: baseline,
      briefed: { harness: record.harness, account: record.account },
    }),
  ]);
  return {
    ...(briefing !== undefined ? { briefing } : {}),
    addDirs: [files.agentDir],
    lost:
      lostBefore.length > 0
        ? [await describeLostSnapshots(root, lostBefore, "as this turn found it", "The turn goes on without it; a")]
        : [],
    finish: async (log) => {
      try {
        const lostAfter: LostSnapshot[] = [];
        const changes = await recordChanges(record, turn, baseline, takenAt, [...lostBefore], lostAfter);
        for (const change of changes) await log(change);
        // A file unchanged since the turn began was reported lost then: only new texts are news.
        const reported = new Set(lostBefore.map((l) => l.sha));
        const fresh = lostAfter.filter((l) => !reported.has(l.sha));
        if (fresh.length > 0) {
          await log({
            type: "notice",
            level: "warning",
            message: await describeLostSnapshots(root, fresh, "as this turn left it"),
          });
        }
        if (record.mode === "plan") {
          const forbidden = changes.filter((c) => !isOwnMemoryFile(memoryRel(c.file), record.name));
          if (forbidden.length > 0) {
            await log({
              type: "notice",
              level: "warning",
              message: `Planner turn wrote memory it must not change (only its own plan.md and dead-ends.md): ${forbidden.map((c) => `${c.file} [${c.id}]`).join(", ")}. Undo with \`offrun memory revert ${record.name} <id>\`.`,
            });
          }
        }
      } catch (error) {
        await log({
          type: "notice",
          level: "warning",
          message: `Could not record memory changes: ${describeError(error)}`,
        });
      }
    },
  };
}

const MEMORY_PREFIX = ".offrun/memory/";

/** `file` of an event (relative to the project) back to a path relative to `.offrun/memory`. */
export function memoryRel(file: string): string {
  return file.startsWith(MEMORY_PREFIX) ? file.slice(MEMORY_PREFIX.length) : file;
}

/**
 * Compares the memory now with the turn's baseline. A file changed during the turn is this
 * agent's doing, except another running agent's own files (its turn records them) and changes
 * another turn already recorded while this one ran: then the diff starts from that record, so
 * one write is never reported twice. Turns running side by side cannot tell who wrote a shared
 * file: the first to end records it.
 */
async function recordChanges(
  record: AgentRecord,
  turn: number,
  baseline: MemoryState,
  takenAt: string,
  lostBefore: LostSnapshot[],
  lostAfter: LostSnapshot[],
): Promise<MemoryChangeDraft[]> {
  const root = record.project;
  const now = await scanMemory(root, lostAfter);
  // A lost snapshot's text is still known this turn: the change is shown, only not revertable later.
  const unsaved = new Map([...lostBefore, ...lostAfter].map((l) => [l.sha, l.text]));
  const readBlob = (sha: string) => unsaved.get(sha) ?? readStoredBlob(root, sha);
  const touched = [...new Set([...Object.keys(baseline), ...Object.keys(now)])]
    .filter((f) => baseline[f] !== now[f])
    .sort();
  if (touched.length === 0) return [];
  // Another agent that ran at any moment of this turn (still running, started meanwhile, or
  // finished meanwhile): what changed in its own files is its doing, recorded by its own turn, and
  // never this turn's to undo. Only another agent idle all along leaves its files to this turn.
  const since = Date.parse(takenAt);
  const active = new Set(
    (await listAgents(root))
      .filter(
        (a) =>
          a.name !== record.name &&
          (a.status === "working" || a.status === "needs-you" || Date.parse(a.updatedAt) >= since),
      )
      .map((a) => a.name),
  );
  return updateRecorded(root, async (recorded) => {
    const changes: MemoryChangeDraft[] = [];
    for (const rel of touched) {
      const owner = ownerOf(rel, record.name);
      if (owner.who === "other_agent" && active.has(owner.owner)) continue;
      // A file Offrun itself made during the turn (its starter text, for an agent that started meanwhile).
      if (
        baseline[rel] === undefined &&
        now[rel] !== undefined &&
        (await Promise.resolve(readBlob(now[rel]!)).catch(() => undefined)) === starterText(rel)
      ) {
        continue;
      }
      const last = recorded[rel];
      const beforeSha = last && last.at > takenAt ? (last.sha ?? undefined) : baseline[rel];
      const afterSha = now[rel];
      if (beforeSha === afterSha) continue;
      const file = `${MEMORY_PREFIX}${rel}`;
      const before = beforeSha === undefined ? undefined : await readBlob(beforeSha);
      const after = afterSha === undefined ? undefined : await readBlob(afterSha);
      changes.push({
        type: "memory_change",
        id: `m${turn}.${changes.length + 1}`,
        file,
        who: owner.who,
        ...(owner.who === "other_agent" ? { owner: owner.owner } : {}),
        diff: await unifiedDiff(before, after, file),
        ...(beforeSha ? { before: beforeSha } : {}),
        ...(afterSha ? { after: afterSha } : {}),
      });
      recorded[rel] = { sha: afterSha ?? null, at: new Date().toISOString() };
    }
    return changes;
  });
}

/** "Lost: the memory snapshot of … (the disk … is full): …", for the turn's log, never left unsaid. */
async function describeLostSnapshots(root: string, lost: LostSnapshot[], when: string, then = "A"): Promise<string> {
  const files = [...new Set(lost.map((l) => `${MEMORY_PREFIX}${l.rel}`))].join(", ");
  return `Lost: the memory snapshot of ${files} ${when} could not be written (${await causeOf(root, lost[0]!.error)}). ${then} change to ${lost.length === 1 ? "that file" : "those files"} in this turn cannot be reverted with \`offrun memory revert\`. Free space to keep the next snapshots.`;
}
