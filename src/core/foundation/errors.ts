/** The fixed set of failure kinds. Failover and notifications switch on these, never on message text. */
export const ERROR_KINDS = [
  "not_installed",
  "not_logged_in",
  "auth_expired",
  "rate_limited",
  "usage_limit",
  "timed_out",
  "cancelled",
  "unreadable_output",
  "invalid_input",
  "invalid_file",
  "git",
  "process_failed",
  "companion_unavailable",
  "not_found",
  "conflict",
  "would_lose_work",
] as const;
export type ErrorKind = (typeof ERROR_KINDS)[number];

/** An error a person can act on: `message` says what happened and what to do. */
export class OffrunError extends Error {
  readonly kind: ErrorKind;
  /** Extra facts for logs and "Copy Details" (argv, exit code, end of stderr). */
  readonly details?: string;

  constructor(kind: ErrorKind, message: string, options: { cause?: unknown; details?: string } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "OffrunError";
    this.kind = kind;
    this.details = options.details;
  }
}

export function isOffrunError(value: unknown, kind?: ErrorKind): value is OffrunError {
  return value instanceof OffrunError && (kind === undefined || value.kind === kind);
}

/** A message for any thrown value, without a stack. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
