/**
 * Named points in Offrun's write paths where a test makes a write fail as a real disk would, or
 * kills the process there, to check that nothing is lost or torn. A no-op unless OFFRUN_FAULT is
 * set: comma-separated rules `<point>:<code>[@<hit>][:<path part>]`, e.g. `append:ENOSPC`,
 * `atomic:EIO:agents/`, or `append:KILL@3:chats/` (SIGKILL at the third append to a chat log).
 * Without `@<hit>` the rule fires at every hit. Real faults (a full tmpfs) are tested too: this is
 * for the places a real disk or a real crash cannot be made to happen on cue.
 */
/** A chat or review log line (line-append.ts); a whole-file write: records, drafts, state.json, caches (store.ts). */
export const FAULT_POINTS = ["append", "atomic"] as const;
export type FaultPoint = (typeof FAULT_POINTS)[number];

const hits = new Map<string, number>();

/** Throws the error the environment asks for at `point` when writing `target` (or dies there); nothing otherwise. */
export function injectFault(point: FaultPoint, target: string): void {
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
