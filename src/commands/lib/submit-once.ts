import { useRef, useState } from "react";

/**
 * A form's submit that runs once at a time: a second ⌘↵ while the first is still on its way (a
 * companion starting a worktree takes seconds) is ignored, so one press makes one agent or one
 * message. `submitting` is for the form's `isLoading`. The guard is a ref, not the state: two
 * presses can come before React renders the first one's state.
 */
export function useSubmitOnce(): {
  submitting: boolean;
  once: <A extends unknown[]>(submit: (...args: A) => Promise<unknown>) => (...args: A) => Promise<void>;
} {
  const inFlight = useRef(false);
  const [submitting, setSubmitting] = useState(false);
  const once =
    <A extends unknown[]>(submit: (...args: A) => Promise<unknown>) =>
    async (...args: A): Promise<void> => {
      if (inFlight.current) return;
      inFlight.current = true;
      setSubmitting(true);
      try {
        await submit(...args);
      } finally {
        inFlight.current = false;
        setSubmitting(false);
      }
    };
  return { submitting, once };
}
