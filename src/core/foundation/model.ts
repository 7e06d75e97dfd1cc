import * as z from "zod";
import { agentNameProblem } from "./names.js";

export const MODES = ["build", "plan"] as const;
/** Build edits and runs commands; Planner writes a plan and changes no file. */
export type Mode = (typeof MODES)[number];

export const AGENT_STATUSES = ["working", "needs-you", "idle", "limited", "failed", "done"] as const;
export type AgentStatus = (typeof AGENT_STATUSES)[number];

/** Whether an agent in this status has a turn that only a running companion can carry on. */
export function needsCompanion(record: { status: AgentStatus }): boolean {
  return record.status === "working" || record.status === "needs-you";
}

/** `.offrun/agents/<agent>.json`: everything needed to show and resume an agent. */
export const agentRecordSchema = z.object({
  version: z.literal(1),
  // Names files and branches (a chat log, a mirror copy, a worktree): a record from a repository
  // or another host is input, and a name like "../../x" must not become a path.
  name: z.string().refine((name) => agentNameProblem(name) === undefined, {
    message: "is not an agent name (lowercase letters, digits, '.', '_' and '-'; no slash, no leading dot)",
  }),
  task: z.string(),
  harness: z.string(),
  // `account` names the login: the key is kept for files and peers of earlier versions.
  account: z.string(),
  mode: z.enum(MODES),
  model: z.string().optional(),
  project: z.string(),
  worktree: z.string(),
  // The branch prefix and the name (both checked), as Offrun makes it: copied and passed to git, a
  // control character in a crafted record would reach the user's clipboard and terminal.
  branch: z
    .string()
    .regex(/^[A-Za-z0-9._/-]+$/, "is not a branch Offrun would name (letters, digits, '.', '_', '-', '/')"),
  base: z.string(), // the commit the worktree was created from
  // What the user named (branch) or the branch HEAD was on: git allows no control character or space in it.
  baseRef: z
    .string()
    // eslint-disable-next-line no-control-regex
    .regex(/^[^\u0000-\u0020\u007f]+$/, "is not a git branch name")
    .optional(),
  port: z.number().int(),
  sessionId: z.string().optional(),
  status: z.enum(AGENT_STATUSES),
  turns: z.number().int().nonnegative(),
  pid: z.number().int().optional(),
  /** When that process started (process-identity.ts): Offrun signals the pid only while it is that process. */
  pidStartTime: z.string().optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
  turnStartedAt: z.string().optional(),
  lastError: z.string().optional(),
  mergedAt: z.string().optional(),
  /** When `offrun discard` removed the worktree: `ls` leaves the agent out then (`--all` shows it). */
  discardedAt: z.string().optional(),
  /** The discard deleted the agent's branch too. */
  branchDeleted: z.boolean().optional(),
  /** The CLI runs inside the sandbox (see core/sandbox): chosen at start, kept for every turn. */
  sandbox: z.boolean().optional(),
  /**
   * Every login was limited: the message goes on by itself at `at` (the earliest reset the CLI gave,
   * plus jitter), on `account` (another login only when that one cannot run then). Kept so that a
   * restarted companion keeps the wait; `offrun stop` or a new message cancels it.
   */
  resume: z
    .object({
      at: z.string(),
      // `account` names the login: the key is kept for files and peers of earlier versions.
      account: z.string(),
      /** What is sent then: the user's message, or a continuation when the limited turn had already done work. */
      prompt: z.string(),
      continuation: z.boolean(),
      /** False when the CLI named no reset time and Offrun backs off instead. */
      resetGiven: z.boolean(),
    })
    .optional(),
});
export type AgentRecord = z.infer<typeof agentRecordSchema>;

/** Backoff pauses vary by up to this share, so that retries of many agents do not arrive together. */
export const RETRY_JITTER = 0.2;

/** `.offrun/config.json`: project settings, versionable. Built when first read (lazy-schemas.ts): most commands never do. */
export const projectConfigSchema = z.lazy(() =>
  z
    .object({
      branchPrefix: z
        .string()
        .regex(/^[A-Za-z0-9._/-]*$/, "use letters, digits, '.', '_', '-' and '/' only")
        .default("offrun/"),
      copyFiles: z.array(z.string()).default([]),
      setup: z.array(z.array(z.string()).min(1)).default([]),
      setupTimeoutSeconds: z.number().positive().default(600),
      defaultHarness: z.string().optional(),
      defaultMode: z.enum(MODES).optional(),
      turnTimeoutMinutes: z.number().positive().default(60),
      idleTimeoutMinutes: z.number().positive().default(10),
      /** A request left this long gets one notice in the log; it stays pending (never approved by itself). */
      approvalTimeoutMinutes: z.number().positive().default(30),
      /** alwaysKeys approved with `offrun approve --always`: matching requests are allowed without asking. */
      alwaysAllow: z.array(z.string()).default([]),
      portRange: z
        .object({ from: z.number().int().min(1024), to: z.number().int().max(65535) })
        .default({ from: 41000, to: 48999 }),
      failover: z
        .object({
          /** auto: a turn cut off by a usage limit is sent again on the next login; ask: the user sends it. */
          resend: z.enum(["auto", "ask"]).default("auto"),
          /** When every login is limited, wait for the earliest reset and go on by itself (once per message). */
          resumeAtReset: z.boolean().default(true),
        })
        .default({ resend: "auto", resumeAtReset: true }),
      /** Who reviews with `offrun review` when the command names no one; else another harness or login than the author's. */
      review: z
        .object({
          harness: z.string().min(1).optional(),
          // `account` names the login: the key is kept for files and peers of earlier versions.
          account: z.string().min(1).optional(),
          model: z.string().optional(),
        })
        .optional(),
      /**
       * Every agent of the project runs inside the sandbox (`offrun start --sandbox` asks it for one).
       * `allowHosts` and `allowWrite` widen the policy, and only they: nothing else is opened.
       */
      sandbox: z
        .object({
          enabled: z.boolean().default(false),
          allowHosts: z.array(z.string().min(1)).default([]),
          allowWrite: z.array(z.string().min(1)).default([]),
        })
        .default({ enabled: false, allowHosts: [], allowWrite: [] }),
      /** Transient 429s (rate limiting, not a usage limit): tries again with capped exponential backoff and jitter. */
      retry: z
        .object({
          attempts: z.number().int().min(0).max(10).default(3),
          baseSeconds: z.number().positive().default(5),
          maxSeconds: z.number().positive().default(120),
        })
        .default({ attempts: 3, baseSeconds: 5, maxSeconds: 120 }),
    })
    .passthrough()
    .superRefine((config, context) => {
      // The longest pause, jitter included, must end well inside a turn, or a retry could never run.
      if (config.retry.maxSeconds * (1 + RETRY_JITTER) >= config.turnTimeoutMinutes * 60) {
        context.addIssue({
          code: "custom",
          path: ["retry", "maxSeconds"],
          message: `with its jitter (up to ${RETRY_JITTER * 100}%) it must stay below turnTimeoutMinutes (${config.turnTimeoutMinutes} min); lower retry.maxSeconds or raise turnTimeoutMinutes`,
        });
      }
      if (config.retry.baseSeconds > config.retry.maxSeconds) {
        context.addIssue({
          code: "custom",
          path: ["retry", "baseSeconds"],
          message: "must not exceed retry.maxSeconds",
        });
      }
    }),
);
export type ProjectConfig = z.infer<typeof projectConfigSchema>;

/** `~/.offrun/projects.json`: every project Offrun has run an agent in. */
export const projectsFileSchema = z.object({
  version: z.literal(1),
  projects: z.array(z.object({ root: z.string(), lastUsedAt: z.string() })),
});
export type ProjectsFile = z.infer<typeof projectsFileSchema>;
