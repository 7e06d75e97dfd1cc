import path from "node:path";
import * as z from "zod";
import { addJsonHooks, hasJsonHooks, hookMomentBase, type JsonHookShape } from "../shared/hooks.js";
import type { HarnessHooks, TranscriptMoment } from "../types.js";

/**
 * Offrun's hook in Gemini CLI's user settings (`<home>/.gemini/settings.json`), in Claude's shape.
 * Checked in the 0.61.0 bundle (HookEventName, createBaseInput, fireAfterAgentEvent,
 * fireNotificationEvent) and recorded in test/fixtures/gemini/0.61.0/hooks/.
 */
const SHAPE: JsonHookShape = {
  events: ["AfterAgent", "Notification"],
  // Gemini counts hook timeouts in milliseconds (its default is 60 000).
  timeout: 10_000,
};

const base = { session_id: z.string().min(1), cwd: z.string().optional() };
const payloadSchema = z.discriminatedUnion("hook_event_name", [
  // The turn's final answer comes as prompt_response.
  z.object({ ...base, hook_event_name: z.literal("AfterAgent"), prompt_response: z.string().optional() }),
  // 0.61.0 sends one notification type, ToolPermission, when a tool call waits for approval.
  z.object({
    ...base,
    hook_event_name: z.literal("Notification"),
    notification_type: z.string(),
    message: z.string().optional(),
  }),
]);

async function signal(payload: unknown, receivedAt: string): Promise<TranscriptMoment | undefined> {
  const parsed = payloadSchema.safeParse(payload);
  if (!parsed.success) return undefined;
  const event = parsed.data;
  const common = hookMomentBase(event, receivedAt);
  if (event.hook_event_name === "AfterAgent") return { ...common, kind: "finished", text: event.prompt_response ?? "" };
  if (event.notification_type !== "ToolPermission") return undefined;
  return { ...common, kind: "needs-approval", text: event.message ?? "" };
}

export const geminiHooks: HarnessHooks = {
  settingsFile: (home) => path.join(home, ".gemini", "settings.json"),
  add: (text, command, file) => addJsonHooks(SHAPE, text, command, file),
  isPresent: (text, command) => hasJsonHooks(SHAPE, text, command),
  signal,
};
