import { ERROR_KINDS, OffrunError, describeError, type ErrorKind } from "../../core/foundation/errors.js";

/** A failure as the faces show it: a short title, the next step, and details to copy. */
export interface ExplainedFailure {
  title: string;
  nextStep: string;
  details: string;
}

const TITLES: Record<ErrorKind, string> = {
  not_installed: "Not Installed",
  not_logged_in: "Not Signed In",
  auth_expired: "Sign-In Expired",
  rate_limited: "Rate Limited",
  usage_limit: "Usage Limit Reached",
  timed_out: "Timed Out",
  cancelled: "Canceled",
  unreadable_output: "Unexpected Output",
  invalid_input: "Cannot Do That",
  invalid_file: "Invalid Settings File",
  git: "Git Failed",
  process_failed: "Command Failed",
  companion_unavailable: "Companion Not Running",
  not_found: "Not Found",
  conflict: "Already Exists",
  would_lose_work: "Would Lose Work",
};

export function explainFailure(error: unknown): ExplainedFailure {
  const message = describeError(error);
  const kind =
    error instanceof OffrunError && (ERROR_KINDS as readonly string[]).includes(error.kind) ? error.kind : undefined;
  const details = [
    kind ? `kind: ${kind}` : undefined,
    message,
    error instanceof OffrunError ? error.details : undefined,
    error instanceof Error && error.stack ? error.stack : undefined,
  ]
    .filter(Boolean)
    .join("\n\n");
  return { title: kind ? TITLES[kind] : "Something Went Wrong", nextStep: message, details };
}
