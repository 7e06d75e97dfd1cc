import fs from "node:fs/promises";
import * as z from "zod";
import { quotaRowSchema, type QuotaRow } from "../quota/row.js";
import { AGENT_STATUSES, MODES, type AgentStatus } from "../foundation/model.js";
import { NOTIFICATION_KINDS } from "../notify/classify.js";
import { userPaths } from "../foundation/paths.js";

/**
 * `~/.offrun/state.json`: what the companion knows, written atomically on every change, so a face
 * (the Raycast menu bar) paints at once from one small file without a round trip. Times are kept
 * as they are (turnStartedAt, updatedAt): the face computes elapsed time itself, so the file need
 * not be rewritten every second.
 */

const pendingSchema = z.object({
  id: z.string().optional(),
  kind: z.enum(["approval", "question"]),
  tool: z.string().optional(),
  /** The command waiting for approval, or the question. */
  text: z.string(),
});

export const snapshotAgentSchema = z.object({
  /** The machine it runs on, when not this one (core/remote): its project is a path there. */
  host: z.string().optional(),
  project: z.string(),
  name: z.string(),
  harness: z.string(),
  // `account` names the login: the key is kept for files and peers of earlier versions.
  account: z.string(),
  mode: z.enum(MODES),
  status: z.enum(AGENT_STATUSES),
  turns: z.number().int().nonnegative(),
  turnStartedAt: z.string().optional(),
  updatedAt: z.string(),
  branch: z.string(),
  worktree: z.string(),
  port: z.number().int(),
  /** The agent's last words in the chat log, cut to a few lines. */
  lastWords: z.string().optional(),
  /** What waits on the user while the status is needs-you. */
  pending: z.array(pendingSchema),
  /** Limited and waiting for a reset: when it goes on by itself, and on which login. */
  // `account` names the login: the key is kept for files and peers of earlier versions.
  resume: z.object({ at: z.string(), account: z.string() }).optional(),
});
export type SnapshotAgent = z.infer<typeof snapshotAgentSchema>;

/** A login's quota as the menu bar shows it: the one quota row (quota/row.ts), attempts left out. */
export type SnapshotQuota = QuotaRow;

export const snapshotNotificationSchema = z.object({
  kind: z.enum(NOTIFICATION_KINDS),
  title: z.string(),
  body: z.string(),
  project: z.string(),
  agent: z.string(),
  /** Another machine's agent (core/remote). */
  host: z.string().optional(),
  at: z.string(),
  outcome: z.string(),
  /** The Raycast deeplink the notification opens (a finished review's opens its findings). */
  link: z.string().optional(),
});

export const snapshotSchema = z.object({
  version: z.literal(1),
  writtenAt: z.string(),
  companion: z.object({ pid: z.number().int(), version: z.string(), startedAt: z.string() }),
  counts: z.record(z.enum(AGENT_STATUSES), z.number().int().nonnegative()),
  agents: z.array(snapshotAgentSchema),
  quota: z.array(quotaRowSchema()),
  /** Newest first. */
  notifications: z.array(snapshotNotificationSchema),
});
export type Snapshot = z.infer<typeof snapshotSchema>;

/**
 * The last snapshot, or undefined when there is none or it cannot be used (a face then asks the
 * companion). One read and one parse: this is the faces' first paint.
 */
export async function readSnapshot(file = userPaths().state): Promise<Snapshot | undefined> {
  return (await readSnapshotExplained(file)).snapshot;
}

/** The snapshot, or why it cannot be used, as one line with what fixes it (absent: none written yet). */
export async function readSnapshotExplained(
  file = userPaths().state,
): Promise<{ snapshot?: Snapshot; problem?: string }> {
  let raw: string;
  try {
    raw = await fs.readFile(file, "utf8");
  } catch {
    return {};
  }
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    return {
      problem: `${file} is damaged (${(error as Error).message}). Restart the companion (offrun companion stop, then start): it writes the file again.`,
    };
  }
  const version = (value as { version?: unknown } | null)?.version;
  if (typeof version === "number" && version > 1) {
    return {
      problem: `${file} was written by a newer Offrun companion (format ${version}). Update the Offrun extension, or run the companion of this version.`,
    };
  }
  const parsed = snapshotSchema.safeParse(value);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    return {
      problem: `${file} is not a snapshot this extension can read (${first ? `${first.path.join(".") || "(whole file)"}: ${first.message}` : "invalid"}). Restart the companion: it writes the file again.`,
    };
  }
  return { snapshot: parsed.data };
}

/** How many agents are in each status. */
export function countStatuses(agents: readonly { status: AgentStatus }[]): Record<AgentStatus, number> {
  const counts = Object.fromEntries(AGENT_STATUSES.map((status) => [status, 0])) as Record<AgentStatus, number>;
  for (const agent of agents) counts[agent.status] += 1;
  return counts;
}
