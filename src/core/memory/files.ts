import fs from "node:fs/promises";
import path from "node:path";
import { readInside, readTextInside } from "../foundation/inside.js";
import { projectPaths } from "../foundation/paths.js";

/**
 * Project memory: `.offrun/memory/conventions.md` for every agent, and per agent `plan.md` and
 * `dead-ends.md` under `.offrun/memory/<agent>/`, in the main checkout (not the worktree), so it
 * outlives worktrees and sessions and every agent of the project sees the same files.
 */

export const CONVENTIONS_FILE = "conventions.md";
export const AGENT_FILES = ["plan.md", "dead-ends.md"] as const;

/** What a missing file starts as: a heading and one line on what belongs in it. */
const STARTERS: Record<string, string> = {
  [CONVENTIONS_FILE]: "# Conventions\n\nHow this project is built and what every agent must follow.\n",
  "plan.md": "# Plan\n\nWhat this agent is doing, what is done and what comes next.\n",
  "dead-ends.md": "# Dead ends\n\nApproaches that were tried and did not work, and why.\n",
};

/** What the memory file `rel` (relative to `.offrun/memory`) starts as when it is created. */
export function starterText(rel: string): string {
  return STARTERS[path.basename(rel)] ?? "";
}

export interface MemoryFiles {
  /** `.offrun/memory`, absolute. */
  dir: string;
  conventions: string;
  /** `.offrun/memory/<agent>`: the one folder the agent may write. */
  agentDir: string;
  plan: string;
  deadEnds: string;
}

export function memoryFiles(root: string, agent: string): MemoryFiles {
  const dir = projectPaths(root).memory;
  const agentDir = path.join(dir, agent);
  return {
    dir,
    conventions: path.join(dir, CONVENTIONS_FILE),
    agentDir,
    plan: path.join(agentDir, "plan.md"),
    deadEnds: path.join(agentDir, "dead-ends.md"),
  };
}

/** Creates the agent's memory files (and conventions.md) with short headings where missing; never overwrites. */
export async function ensureMemory(root: string, agent: string): Promise<MemoryFiles> {
  const files = memoryFiles(root, agent);
  await fs.mkdir(files.agentDir, { recursive: true });
  for (const file of [files.conventions, files.plan, files.deadEnds]) {
    // "wx": a file that appeared meanwhile (another agent, the user) is kept as it is.
    await fs.writeFile(file, starterText(file), { flag: "wx" }).catch((error: unknown) => {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    });
  }
  return files;
}

/** Creates conventions.md with its heading when missing (`offrun memory edit` without an agent). */
export async function ensureConventions(root: string): Promise<string> {
  const file = path.join(projectPaths(root).memory, CONVENTIONS_FILE);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, starterText(CONVENTIONS_FILE), { flag: "wx" }).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  });
  return file;
}

/** The three files an agent reads, relative to the project and with their text (absent files left out). */
export async function readAgentMemory(root: string, agent: string): Promise<{ path: string; text: string }[]> {
  const files = memoryFiles(root, agent);
  const found: { path: string; text: string }[] = [];
  for (const file of [files.conventions, files.plan, files.deadEnds]) {
    const text = await readTextInside(root, file);
    if (text !== undefined) found.push({ path: path.relative(root, file), text });
  }
  return found;
}

/** Whose a memory file is, seen from the agent whose turn changed it. */
export type MemoryOwner =
  { who: "own" } | { who: "other_agent"; owner: string } | { who: "conventions" } | { who: "shared" };

/** `rel` is relative to `.offrun/memory`. */
export function ownerOf(rel: string, agent: string): MemoryOwner {
  const parts = rel.split(/[\\/]/);
  if (parts.length === 1) return parts[0] === CONVENTIONS_FILE ? { who: "conventions" } : { who: "shared" };
  return parts[0] === agent ? { who: "own" } : { who: "other_agent", owner: parts[0] ?? "" };
}

/** True for the two files an agent keeps itself: the only memory a Planner turn may change. */
export function isOwnMemoryFile(rel: string, agent: string): boolean {
  const parts = rel.split(/[\\/]/);
  return parts.length === 2 && parts[0] === agent && (AGENT_FILES as readonly string[]).includes(parts[1] ?? "");
}

/** Room for the memory in a session's first message, so it never crowds out the task. */
const BRIEFING_CHARS = 15_000;

/**
 * What an agent is told at the start of every session (first turn, another login, another
 * harness): the memory files, with the absolute paths of the two it keeps current.
 */
export async function memoryBriefing(root: string, agent: string, canWrite = true): Promise<string> {
  const files = memoryFiles(root, agent);
  // A memory file that links out of the repository is not read: its target could be a secret.
  const read = async (file: string) => {
    const found = await readInside(root, file);
    if (found && "outside" in found) return `(not read: it is a link to ${found.outside}, outside the repository)`;
    return found?.text.trim() || "(empty)";
  };
  const sections = [
    `### Conventions (${files.conventions}, shared by every agent of this project; read it, change it only when the user asks)\n${await read(files.conventions)}`,
    `### Your plan (${files.plan})\n${await read(files.plan)}`,
    `### Your dead ends (${files.deadEnds})\n${await read(files.deadEnds)}`,
  ];
  const body = sections.join("\n\n");
  return [
    "## Project memory",
    "These files outlive this session: later sessions of yours, and other agents, read them.",
    body.length > BRIEFING_CHARS ? `${body.slice(0, BRIEFING_CHARS)}\n(rest left out: read the files)` : body,
    canWrite
      ? [
          "Keep your plan and dead ends current as you work: update plan.md when the plan changes (what is done, what is next), and add to dead-ends.md every approach that failed and why, so no later session tries it again.",
          `You may write exactly these two files, by their absolute paths:\n- ${files.plan}\n- ${files.deadEnds}`,
          `Do not write anything else under ${files.dir}.`,
        ].join("\n")
      : "You cannot write files in this mode, these included: when your plan or dead ends change, say so in your reply.",
    "## Your message",
  ].join("\n\n");
}
