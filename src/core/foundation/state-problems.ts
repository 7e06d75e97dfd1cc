/**
 * Problems with Offrun's own files that were worked around, not thrown: a state file found corrupt
 * (not JSON, the wrong shape) and what was done about it, or lines a full disk kept out of a chat
 * log. The code that finds one goes on with what it can (it must not stop the companion, nor any
 * project it does not concern) and reports it here; each face says it: the companion in
 * companion.log (and keeps it for the other faces, problem-register.ts), the CLI on stderr, Raycast
 * in the menu bar and the Agents view. Core never prints.
 */
export interface StateProblem {
  file: string;
  /** What was wrong, what Offrun did, and what to do. */
  message: string;
  /** Offrun repaired the file (rebuilt or rewrote it): nothing is left to do, though something may be lost. */
  repaired?: boolean;
}

type Listener = (problem: StateProblem) => void;

const problems = new Map<string, StateProblem>();
const listeners = new Set<Listener>();

/** Reports a problem once per file and message (a file read on every poll is told once). */
export function reportStateProblem(problem: StateProblem): void {
  if (problems.get(problem.file)?.message === problem.message) return;
  problems.set(problem.file, problem);
  for (const listener of listeners) listener(problem);
}

/** Calls `listener` with every problem reported from now on; returns the unsubscribe. */
export function onStateProblem(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The problems reported so far in this process. */
export function stateProblems(): StateProblem[] {
  return [...problems.values()];
}
