/** What the fake model does for one model request. Tests script a queue of these per server. */
export type Step =
  /** A plain assistant reply. */
  | { kind: "text"; text: string }
  /** Calls the CLI's own file-writing tool; the CLI's next request (with the tool result) gets the next step. */
  | { kind: "write_file"; path: string; content: string; text?: string }
  /** Calls the CLI's shell tool. */
  | { kind: "shell"; command: string }
  /** Calls any tool the CLI offers, by name, with this input (a question tool, say). */
  | { kind: "tool"; name: string; input: Record<string, unknown> }
  /** HTTP 429, a transient rate limit (not a usage limit). */
  | { kind: "rate_limit"; retryAfterSeconds?: number }
  /** HTTP 429 that says the login's usage limit is reached, with its reset time (epoch seconds). */
  | { kind: "usage_limit"; resetsAt: number }
  /** HTTP 401: the login's sign-in is not accepted (signed out, revoked). */
  | { kind: "unauthorized" }
  /** Accepts the request and never answers (the hang scenario). */
  | { kind: "hang" }
  /** Answers with `step` once `until` settles: what a test does meanwhile happens before the answer. */
  | { kind: "held"; until: Promise<unknown>; step: Exclude<Step, { kind: "held" | "hang" }> };

/** Quota headers to put on every response (what subscription logins see). */
export interface QuotaHeaders {
  fiveHourUsedPercent: number;
  fiveHourResetsAt: number; // epoch seconds
  weeklyUsedPercent: number;
  weeklyResetsAt: number;
}

/** One request as the server received it. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  /** The step the server answered with, or "auxiliary" for requests that did not consume one. */
  answeredWith: Step["kind"] | "auxiliary" | "default";
  /** When the request's body had arrived (epoch ms, sub-millisecond). */
  receivedAt: number;
  /** When the answer's last byte was handed to the socket (epoch ms); absent while it streams or hangs. */
  finishedAt?: number;
}
