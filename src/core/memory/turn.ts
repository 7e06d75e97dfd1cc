import { listAgents } from "../records/records.js";
import { describeError } from "../foundation/errors.js";
import type { ParsedEvent } from "../foundation/events.js";
import { ensureMemory, isOwnMemoryFile, memoryBriefing, ownerOf } from "./files.js";
import { unifiedDiff } from "./diff.js";
import {
  excludeSnapshots,
  readBaseline,
  readBlob,
  scanMemory,
  updateRecorded,
  writeBaseline,
  type MemoryState,
} from "./snapshots.js";
import type { AgentRecord } from "../foundation/model.js";

type MemoryChangeDraft = Extract<ParsedEvent, { type: "memory_change" }>;

/** The memory side of one turn: what to tell the agent first, where it may write, and what it changed. */
export interface MemoryTurn {
  /** Goes before the user's message at the start of a session; absent when the session goes on. */
  briefing?: string;
  /** The one folder the agent may write besides its worktree: its own memory. */
  addDirs: string[];
  /** After the turn: each changed memory file becomes a memory_change event (and, in Planner, a warning when not allowed). */
  finish(log: (event: ParsedEvent) => Promise<void>): Promise<void>;
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
  const baseline = await scanMemory(root);
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
    finish: async (log) => {
      try {
        const changes = await recordChanges(record, turn, baseline, takenAt);
        for (const change of changes) await log(change);
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
): Promise<MemoryChangeDraft[]> {
  const root = record.project;
  const now = await scanMemory(root);
  const touched = [...new Set([...Object.keys(baseline), ...Object.keys(now)])]
    .filter((f) => baseline[f] !== now[f])
    .sort();
  if (touched.length === 0) return [];
  const running = new Set(
    (await listAgents(root))
      .filter((a) => a.name !== record.name && (a.status === "working" || a.status === "needs-you"))
      .map((a) => a.name),
  );
  return updateRecorded(root, async (recorded) => {
    const changes: MemoryChangeDraft[] = [];
    for (const rel of touched) {
      const owner = ownerOf(rel, record.name);
      if (owner.who === "other_agent" && running.has(owner.owner)) continue;
      const last = recorded[rel];
      const beforeSha = last && last.at > takenAt ? (last.sha ?? undefined) : baseline[rel];
      const afterSha = now[rel];
      if (beforeSha === afterSha) continue;
      const file = `${MEMORY_PREFIX}${rel}`;
      const before = beforeSha === undefined ? undefined : await readBlob(root, beforeSha);
      const after = afterSha === undefined ? undefined : await readBlob(root, afterSha);
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
