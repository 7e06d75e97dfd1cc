import { RETRY_JITTER, type ProjectConfig } from "../foundation/model.js";

// The pause before a transient 429 is tried again, for the turn chain (turn-chain.ts).

/** Exponential backoff with jitter, capped; the cap plus its jitter stays below the turn timeout (checked in the config). */
export function backoffMs(attempt: number, retry: ProjectConfig["retry"], random = Math.random): number {
  const capped = Math.min(retry.baseSeconds * 2 ** (attempt - 1), retry.maxSeconds);
  return Math.round(capped * (1 + RETRY_JITTER * random()) * 1000);
}

/** Waits, or stops early when the turn is stopped; true when the full pause passed. */
export function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
