import fs from "node:fs/promises";
import path from "node:path";
import { listAgents } from "../../core/records/records.js";
import { memoryFiles } from "../../core/memory/files.js";
import { memoryHistory, type MemoryHistoryEntry } from "../../core/memory/history.js";
import { visible } from "../../core/foundation/visible.js";

/** Project Memory: conventions.md, each agent's plan and dead ends, and the recent memory changes. */

export interface MemoryFileRow {
  /** "conventions.md", "<agent>/plan.md". */
  title: string;
  file: string;
  agent?: string;
  text: string | undefined;
}

export interface MemoryView {
  root: string;
  files: MemoryFileRow[];
  /** Newest first, at most `recent`. */
  changes: MemoryHistoryEntry[];
}

const read = (file: string) => fs.readFile(file, "utf8").catch(() => undefined);

export async function loadMemoryView(root: string, recent = 30): Promise<MemoryView> {
  const agents = await listAgents(root);
  const conventions = memoryFiles(root, "_").conventions;
  const files: MemoryFileRow[] = [{ title: "conventions.md", file: conventions, text: await read(conventions) }];
  for (const agent of agents) {
    const own = memoryFiles(root, agent.name);
    for (const file of [own.plan, own.deadEnds]) {
      const text = await read(file);
      if (text !== undefined)
        files.push({ title: `${agent.name}/${path.basename(file)}`, file, agent: agent.name, text });
    }
  }
  const changes = (await memoryHistory(root)).reverse().slice(0, recent);
  return { root, files, changes };
}

/** A memory change as markdown: who, when, and the diff. */
export function memoryChangeMarkdown(entry: MemoryHistoryEntry): string {
  const fence = "`".repeat(Math.max(3, ...[...entry.event.diff.matchAll(/`+/g)].map((m) => m[0].length + 1)));
  return visible(
    [
      `**${entry.event.file}** · turn ${entry.event.turn} of ${entry.agent} · ${entry.event.at}`,
      "",
      `${fence}diff`,
      entry.event.diff.trimEnd(),
      fence,
    ].join("\n"),
  );
}
