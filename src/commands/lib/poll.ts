import { useEffect, useRef } from "react";

/**
 * Calls `refresh` every `everyMs` while `active`, one look at a time: the next starts `everyMs` after
 * the last one settled, so a read slower than the interval never piles up behind a timer. Unmounting,
 * or `active` turning false, stops the loop. Loads that should also end mid-read pass an `abortable`
 * ref to useCachedPromise: it aborts the running call when the next starts and when the view closes.
 */
export function usePoll(refresh: () => Promise<unknown>, everyMs: number, active: boolean): void {
  const latest = useRef(refresh);
  latest.current = refresh;
  useEffect(() => {
    if (!active) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const next = () => {
      if (!stopped) timer = setTimeout(look, everyMs);
    };
    const look = () => {
      latest.current().then(next, next);
    };
    next();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [active, everyMs]);
}
