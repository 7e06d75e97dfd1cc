import path from "node:path";
import { visible } from "../../core/foundation/visible.js";
import type { FileProblem } from "./agents-overview.js";

/** A damaged or repaired file as the menu bar and the Agents view show it. */
export interface FileProblemView {
  id: string;
  /** The file's name, with its host's. */
  title: string;
  /** "Damaged" (something to do) or "Repaired" (told for a day: something may be lost). */
  state: "Damaged" | "Repaired";
  /** What was wrong, what Offrun did and what to do; the file's full path first. */
  markdown: string;
  message: string;
  file: string;
  host?: string;
}

/**
 * Damaged files first: they are the ones to act on. A file both read here and kept by the companion
 * is shown once. The paths and messages are shown as plain text.
 */
export function viewFileProblems(problems: readonly FileProblem[]): FileProblemView[] {
  const once = new Map(problems.map((problem) => [`${problem.host ?? ""}\u0000${problem.file}`, problem]));
  return [...once.values()]
    .sort((a, b) => Number(a.repaired ?? false) - Number(b.repaired ?? false))
    .map((problem) => {
      const name = path.basename(problem.file);
      const title = visible(problem.host ? `${name} on ${problem.host}` : name, "line");
      const state = problem.repaired ? "Repaired" : "Damaged";
      return {
        id: `file-problem:${problem.host ?? ""}:${problem.file}`,
        title,
        state,
        markdown: `## ${state}: ${title}\n\n\`${visible(problem.file, "line")}\`\n\n${visible(problem.message)}`,
        message: visible(problem.message),
        file: problem.file,
        ...(problem.host ? { host: problem.host } : {}),
      };
    });
}
