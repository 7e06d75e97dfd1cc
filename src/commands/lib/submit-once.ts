import { useRef, useState } from "react";

/**
 * A form's submit (or an action) that runs once at a time: a second ⌘↵ while the first is still on
 * its way (a companion starting a worktree takes seconds, a review minutes) is ignored, so one press
 * makes one agent, one message, one review. `key` keeps apart what may run side by side (reviews of
 * two agents). `submitting` is for the view's `isLoading`. The guard is a ref, not the state: two
 * presses can come before React renders the first one's state.
 */
export function useSubmitOnce(): {
  submitting: boolean;
  once: <A extends unknown[]>(submit: (...args: A) => Promise<unknown>, key?: string) => (...args: A) => Promise<void>;
} {
  const inFlight = useRef(new Set<string>());
  const [running, setRunning] = useState(0);
  const once =
    <A extends unknown[]>(submit: (...args: A) => Promise<unknown>, key = "") =>
    async (...args: A): Promise<void> => {
      if (inFlight.current.has(key)) return;
      inFlight.current.add(key);
      setRunning((n) => n + 1);
      try {
        await submit(...args);
      } finally {
        inFlight.current.delete(key);
        setRunning((n) => n - 1);
      }
    };
  return { submitting: running > 0, once };
}
