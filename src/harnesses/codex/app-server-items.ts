import * as z from "zod";
import type { ParsedEvent } from "../../core/foundation/events.js";

/**
 * codex app-server (0.171.0) notifications in the shapes of `codex exec --json`, so that the exec
 * parser maps both. Sources of truth: `codex app-server generate-ts` (v2 ThreadItem,
 * AccountRateLimitsUpdatedNotification) and openai/codex sdk/typescript/src/items.ts.
 */

const fileChangesSchema = z.array(z.looseObject({ path: z.string(), kind: z.looseObject({ type: z.string() }) }));
const itemNotificationSchema = z.looseObject({ item: z.looseObject({ type: z.string(), id: z.string() }) });
const rateLimitsSchema = z.looseObject({
  rateLimits: z.looseObject({
    primary: z
      .looseObject({
        usedPercent: z.number(),
        windowDurationMins: z.number().nullable(),
        resetsAt: z.number().nullable(),
      })
      .nullable(),
    secondary: z
      .looseObject({
        usedPercent: z.number(),
        windowDurationMins: z.number().nullable(),
        resetsAt: z.number().nullable(),
      })
      .nullable(),
  }),
});
const v2ItemSchema = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("agentMessage"), id: z.string(), text: z.string() }),
  z.looseObject({
    type: z.literal("commandExecution"),
    id: z.string(),
    command: z.string(),
    aggregatedOutput: z.string().nullable().optional(),
    exitCode: z.number().nullable().optional(),
    status: z.string(),
  }),
  z.looseObject({ type: z.literal("fileChange"), id: z.string(), changes: fileChangesSchema, status: z.string() }),
  z.looseObject({
    type: z.literal("mcpToolCall"),
    id: z.string(),
    server: z.string(),
    tool: z.string(),
    arguments: z.unknown().optional(),
    result: z.unknown().optional(),
    error: z.looseObject({ message: z.string() }).nullable().optional(),
    status: z.string(),
  }),
  z.looseObject({ type: z.literal("webSearch"), id: z.string(), query: z.string() }),
]);
const V2_ITEM_TYPES: readonly string[] = v2ItemSchema.options.map((o) => o.shape.type.value);

/** An app-server item as the exec stream's item (sdk/typescript/src/items.ts), or undefined to skip it. */
export function execItem(params: unknown, fileChanges: Map<string, string[]>): Record<string, unknown> | undefined {
  const raw = itemNotificationSchema.safeParse(params).data?.item;
  if (!raw || !V2_ITEM_TYPES.includes(raw.type)) return undefined; // user messages, reasoning, newer kinds
  const parsed = v2ItemSchema.safeParse(raw);
  if (!parsed.success)
    return { id: raw.id, type: "error", message: `Codex sent a ${raw.type} item Offrun cannot read.` };
  const item = parsed.data;
  switch (item.type) {
    case "agentMessage":
      return { id: item.id, type: "agent_message", text: item.text };
    case "commandExecution":
      return {
        id: item.id,
        type: "command_execution",
        command: item.command,
        aggregated_output: item.aggregatedOutput ?? "",
        exit_code: item.exitCode ?? null,
        status: snakeCase(item.status),
      };
    case "fileChange":
      fileChanges.set(
        item.id,
        item.changes.map((c) => c.path),
      );
      return {
        id: item.id,
        type: "file_change",
        changes: item.changes.map((c) => ({ path: c.path, kind: c.kind.type })),
        status: snakeCase(item.status),
      };
    case "mcpToolCall":
      return {
        id: item.id,
        type: "mcp_tool_call",
        server: item.server,
        tool: item.tool,
        arguments: item.arguments,
        result: item.result,
        error: item.error,
        status: snakeCase(item.status),
      };
    case "webSearch":
      return { id: item.id, type: "web_search", query: item.query };
  }
}

/** account/rateLimits/updated as quota windows (primary is the 5-hour window, secondary the weekly). */
export function quotaEvents(params: unknown): ParsedEvent[] {
  const limits = rateLimitsSchema.safeParse(params).data?.rateLimits;
  if (!limits) return [];
  const observedAt = new Date().toISOString();
  const windows = (["primary", "secondary"] as const).flatMap((slot) => {
    const w = limits[slot];
    if (!w) return [];
    const minutes = w.windowDurationMins ?? (slot === "primary" ? 300 : 10_080);
    const kind = minutes === 300 ? "five_hour" : minutes === 10_080 ? "seven_day" : `window_${minutes}m`;
    const usedPercent = Math.min(100, Math.max(0, w.usedPercent));
    return [
      {
        kind,
        usedPercent,
        ...(w.resetsAt === null ? {} : { resetsAt: new Date(w.resetsAt * 1000).toISOString() }),
        status: usedPercent >= 100 ? ("rejected" as const) : ("allowed" as const),
        source: "codex-app-server",
        observedAt,
      },
    ];
  });
  return windows.length > 0 ? [{ type: "quota", windows }] : [];
}

/** "inProgress" → "in_progress": exec spells statuses in snake case. */
function snakeCase(status: string): string {
  return status.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}
