import { signalGroup } from "./pids.js";

/** How long a SIGTERM may take before SIGKILL follows. */
export const FORCE_KILL_AFTER_MS = 2_000;

/** Why a runner ended a process itself. */
export type KilledBecause = "timeout" | "idle" | "cancelled";

/** The child and the kill that ends its whole process group: shared by one-way and piped turns. */
export function watchdog(
  pid: number | undefined,
  options: { timeoutMs: number; idleTimeoutMs: number; signal?: AbortSignal },
) {
  let killedBecause: KilledBecause | undefined;
  const killTree = (why: KilledBecause) => {
    if (killedBecause) return;
    killedBecause = why;
    signalGroup(pid, "SIGTERM");
    setTimeout(() => signalGroup(pid, "SIGKILL"), FORCE_KILL_AFTER_MS).unref();
  };
  let idleTimer: NodeJS.Timeout | undefined;
  let totalTimer: NodeJS.Timeout | undefined;
  let totalLeftMs = options.timeoutMs;
  let totalSince = Date.now();
  let paused = 0;
  // Once stopped, nothing may arm a clock again: a live turn's last events report progress after
  // the process exited, and a timer firing minutes later would signal a process group whose id
  // may by then belong to someone else.
  let stopped = false;
  const progress = () => {
    clearTimeout(idleTimer);
    if (paused === 0 && !stopped) idleTimer = setTimeout(() => killTree("idle"), options.idleTimeoutMs);
  };
  const runTotal = () => {
    totalSince = Date.now();
    totalTimer = setTimeout(() => killTree("timeout"), totalLeftMs);
  };
  const onAbort = () => killTree("cancelled");
  progress();
  runTotal();
  if (options.signal?.aborted) onAbort();
  options.signal?.addEventListener("abort", onAbort);
  return {
    killTree,
    progress,
    killedBecause: () => killedBecause,
    /** Time spent waiting for the user counts against neither clock. */
    pause() {
      paused += 1;
      if (paused > 1) return;
      clearTimeout(idleTimer);
      clearTimeout(totalTimer);
      totalLeftMs -= Date.now() - totalSince;
    },
    resume() {
      paused = Math.max(0, paused - 1);
      if (paused > 0 || stopped) return;
      runTotal();
      progress();
    },
    stop() {
      stopped = true;
      clearTimeout(idleTimer);
      clearTimeout(totalTimer);
      options.signal?.removeEventListener("abort", onAbort);
    },
  };
}
