import { isCopiedLine } from "../shared/copied-lines.js";
import { readdir } from "node:fs/promises";
import path from "node:path";
import * as z from "zod";
import type { QuotaWindow } from "../../core/foundation/events.js";

/**
 * Codex writes every thread to `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<local time>-<thread_id>.jsonl`
 * (0.171.0; a resume appends to the same file). Lines are `{timestamp, type, payload}`; an
 * `event_msg` whose payload is `token_count` carries the `x-codex-*` rate-limit headers of the
 * last response as `rate_limits.{primary,secondary}` (source: codex-rs protocol `RateLimitSnapshot`).
 */

const windowSchema = z.looseObject({
  used_percent: z.number(),
  window_minutes: z.number().nullable().optional(),
  resets_at: z.number().nullable().optional(), // epoch seconds (current builds)
  resets_in_seconds: z.number().nullable().optional(), // relative to the line's timestamp (older builds)
});

const tokenCountLineSchema = z.looseObject({
  timestamp: z.string(),
  type: z.literal("event_msg"),
  payload: z.looseObject({
    type: z.literal("token_count"),
    rate_limits: z
      .looseObject({ primary: windowSchema.nullable().optional(), secondary: windowSchema.nullable().optional() })
      .nullable()
      .optional(),
  }),
});

export const CODEX_ROLLOUT_SOURCE = "codex-rollout";

/** The latest quota windows a rollout recorded (empty when it recorded none). Never throws. */
export function readCodexRolloutQuota(lines: string[]): QuotaWindow[] {
  for (let i = lines.length - 1; i >= 0; i--) {
    const windows = codexRolloutLineQuota(lines[i] ?? "");
    if (windows && windows.length > 0) return windows;
  }
  return [];
}

/**
 * The quota windows one rollout line carries: undefined when the line is not a `token_count`
 * event with rate limits, null when it is not JSON at all (a line cut short while Codex wrote it).
 */
export function codexRolloutLineQuota(line: string): QuotaWindow[] | undefined | null {
  // Cheap test first: rollouts carry the full prompt and are large.
  if (!line.includes('"token_count"') || isCopiedLine(line)) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    return null;
  }
  const parsed = tokenCountLineSchema.safeParse(json);
  const limits = parsed.success ? parsed.data.payload.rate_limits : undefined;
  if (!parsed.success || !limits) return undefined;
  const windows: QuotaWindow[] = [];
  for (const [slot, window] of [
    ["primary", limits.primary],
    ["secondary", limits.secondary],
  ] as const) {
    if (window) windows.push(toQuotaWindow(slot, window, parsed.data.timestamp));
  }
  return windows.length > 0 ? windows : undefined;
}

function toQuotaWindow(
  slot: "primary" | "secondary",
  window: z.infer<typeof windowSchema>,
  observedAt: string,
): QuotaWindow {
  const usedPercent = Math.min(100, Math.max(0, window.used_percent));
  const resetsAt =
    typeof window.resets_at === "number"
      ? new Date(window.resets_at * 1000).toISOString()
      : typeof window.resets_in_seconds === "number"
        ? new Date(Date.parse(observedAt) + window.resets_in_seconds * 1000).toISOString()
        : undefined;
  return {
    kind: windowKind(slot, window.window_minutes ?? undefined),
    usedPercent,
    ...(resetsAt === undefined ? {} : { resetsAt }),
    status: usedPercent >= 100 ? "rejected" : "allowed",
    source: CODEX_ROLLOUT_SOURCE,
    observedAt,
  };
}

/** Primary is the 5-hour window and secondary the weekly one; trust the minutes when given. */
function windowKind(slot: "primary" | "secondary", minutes: number | undefined): string {
  if (minutes === 300) return "five_hour";
  if (minutes === 10_080) return "seven_day";
  if (minutes !== undefined) return `window_${minutes}m`;
  return slot === "primary" ? "five_hour" : "seven_day";
}

/** The rollout file of a thread in a Codex home, or undefined when there is none. */
export async function findCodexRollout(codexHome: string, threadId: string): Promise<string | undefined> {
  const root = path.join(codexHome, "sessions");
  const suffix = `-${threadId}.jsonl`;
  // Newest day first: a thread is usually from today or a recent day.
  for (const year of await listDesc(root)) {
    for (const month of await listDesc(path.join(root, year))) {
      for (const day of await listDesc(path.join(root, year, month))) {
        const dir = path.join(root, year, month, day);
        const hit = (await listDesc(dir)).find((name) => name.startsWith("rollout-") && name.endsWith(suffix));
        if (hit) return path.join(dir, hit);
      }
    }
  }
  return undefined;
}

async function listDesc(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).sort().reverse();
  } catch {
    return [];
  }
}
