/**
 * Named points in Offrun's write paths where a test makes a write fail as a real disk would, to
 * check that nothing is lost or torn. A no-op unless OFFRUN_FAULT is set, e.g.
 * `OFFRUN_FAULT=append:ENOSPC` or `OFFRUN_FAULT=append:EIO:chats/,atomic:ENOSPC:agents/` (the third part,
 * when given, must occur in the path written). Real faults (a full tmpfs) are tested too: this is
 * for the places a real disk cannot be made to fail on cue.
 */
/** A chat or review log line (line-append.ts); a whole-file write: records, drafts, state.json, caches (store.ts). */
export const FAULT_POINTS = ["append", "atomic"] as const;
export type FaultPoint = (typeof FAULT_POINTS)[number];

/** Throws the error the environment asks for at `point` when writing `target`; nothing otherwise. */
export function injectFault(point: FaultPoint, target: string): void {
  const spec = process.env.OFFRUN_FAULT;
  if (!spec) return;
  for (const rule of spec.split(",")) {
    const [name, code, match] = rule.split(":");
    if (name !== point || !code) continue;
    if (match && !target.includes(match)) continue;
    const error: NodeJS.ErrnoException = new Error(`${code}: injected at ${point} (OFFRUN_FAULT), write '${target}'`);
    error.code = code;
    error.path = target;
    throw error;
  }
}
