import { z } from "zod";

export const MODES = ["build", "plan"] as const;
/** Build edits and runs commands; Planner writes a plan and changes no file. */
export type Mode = (typeof MODES)[number];

export const AGENT_STATUSES = ["working", "needs-you", "idle", "limited", "failed", "done"] as const;
export type AgentStatus = (typeof AGENT_STATUSES)[number];

/** `.offrun/agents/<agent>.json`: everything needed to show and resume an agent. */
export const agentRecordSchema = z.object({
  version: z.literal(1),
  name: z.string(),
  task: z.string(),
  harness: z.string(),
  account: z.string(),
  mode: z.enum(MODES),
  model: z.string().optional(),
  project: z.string(),
  worktree: z.string(),
  branch: z.string(),
  base: z.string(), // the commit the worktree was created from
  baseRef: z.string().optional(), // what the user named (branch) or the branch HEAD was on
  port: z.number().int(),
  sessionId: z.string().optional(),
  status: z.enum(AGENT_STATUSES),
  turns: z.number().int().nonnegative(),
  pid: z.number().int().optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
  turnStartedAt: z.string().optional(),
  lastError: z.string().optional(),
  mergedAt: z.string().optional(),
});
export type AgentRecord = z.infer<typeof agentRecordSchema>;

/** `.offrun/config.json`: project settings, versionable. */
export const projectConfigSchema = z
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
    portRange: z
      .object({ from: z.number().int().min(1024), to: z.number().int().max(65535) })
      .default({ from: 41000, to: 48999 }),
  })
  .passthrough();
export type ProjectConfig = z.infer<typeof projectConfigSchema>;

/** `~/.offrun/projects.json`: every project Offrun has run an agent in. */
export const projectsFileSchema = z.object({
  version: z.literal(1),
  projects: z.array(z.object({ root: z.string(), lastUsedAt: z.string() })),
});
export type ProjectsFile = z.infer<typeof projectsFileSchema>;
