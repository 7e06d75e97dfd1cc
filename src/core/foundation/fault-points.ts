import { appendFileSync } from "node:fs";

/**
 * Named points in Offrun's write paths where a test makes a write fail as a real disk would, or
 * kills the process there, to check that nothing is lost or torn. A no-op unless OFFRUN_FAULT is
 * set: comma-separated rules `<point>:<code>[@<hit>][:<path part>]`, e.g. `append:ENOSPC`,
 * `atomic:EIO:agents/`, or `append:KILL@3:chats/` (SIGKILL at the third append to a chat log).
 * Without `@<hit>` the rule fires at every hit. Real faults (a full tmpfs) are tested too: this is
 * for the places a real disk or a real crash cannot be made to happen on cue. OFFRUN_FAULT_TRACE
 * names a file that gets one line per hit (`<point>\t<target>`): a test's dry run lists the
 * points a scenario passes, and the matrix then picks among them.
 */
/**
 * `append`: a chat or review log line (line-append.ts); `atomic`: a whole-file write (records,
 * drafts, state.json, caches: store.ts); `worktree`: an agent's worktree just checked out, before
 * the setup; `snapshot`: a memory snapshot's blob; `session-copy`: a session copied to the next
 * login, before the agent is switched to it; `merge`: an agent's branch merged, before its record
 * says so; `scratch`: a review's scratch checkout made, before the author's changes are applied.
 */
export const FAULT_POINTS = ["append", "atomic", "worktree", "snapshot", "session-copy", "merge", "scratch"] as const;

/**
 * Points inside operations the crash matrix's scenario does not run, each with its own focused
 * test: `discard`: an agent's worktree removed, before its record says so; `login`: a login change
 * begun (its home made, or accounts.json written), before the rest of it (accounts.json, the
 * agents' records, the home's deletion); `memory-revert`: a memory file put back, before that is
 * recorded.
 */
export const OPERATION_FAULT_POINTS = ["discard", "login", "memory-revert"] as const;
export type FaultPoint = (typeof FAULT_POINTS)[number] | (typeof OPERATION_FAULT_POINTS)[number];

const hits = new Map<string, number>();

/** Throws the error the environment asks for at `point` when writing `target` (or dies there); nothing otherwise. */
export function injectFault(point: FaultPoint, target: string): void {
  const trace = process.env.OFFRUN_FAULT_TRACE;
  if (trace) appendFileSync(trace, `${point}\t${target}\n`);
  const spec = process.env.OFFRUN_FAULT;
  if (!spec) return;
  for (const rule of spec.split(",")) {
    const [name, action, match] = rule.split(":");
    if (name !== point || !action) continue;
    if (match && !target.includes(match)) continue;
    const [code, at] = action.split("@");
    const hit = (hits.get(rule) ?? 0) + 1;
    hits.set(rule, hit);
    if (at !== undefined && hit !== Number(at)) continue;
    // As a crash would: no cleanup, no flush, nothing after this line runs.
    if (code === "KILL") process.kill(process.pid, "SIGKILL");
    const error: NodeJS.ErrnoException = new Error(`${code}: injected at ${point} (OFFRUN_FAULT), write '${target}'`);
    error.code = code;
    error.path = target;
    throw error;
  }
}
