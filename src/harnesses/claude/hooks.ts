import fs from "node:fs/promises";
import path from "node:path";
import * as z from "zod";
import { addJsonHooks, hasJsonHooks, hookMomentBase, isObject, type JsonHookShape } from "../shared/hooks.js";
import type { HarnessHooks, TranscriptMoment } from "../types.js";

/**
 * Offrun's hook in Claude Code's `settings.json`: Notification and Stop. Payload fields checked
 * against the schemas inside 2.1.332 and recorded in test/fixtures/claude/2.1.332/hooks/.
 */
const SHAPE: JsonHookShape = {
  events: ["Notification", "Stop"],
  // Seconds Claude waits for the hook; it returns at once, this only bounds a stuck disk.
  timeout: 10,
};

const base = { session_id: z.string().min(1), transcript_path: z.string().optional(), cwd: z.string().optional() };
const payloadSchema = z.discriminatedUnion("hook_event_name", [
  z.object({
    ...base,
    hook_event_name: z.literal("Notification"),
    message: z.string(),
    notification_type: z.string().optional(),
  }),
  z.object({ ...base, hook_event_name: z.literal("Stop"), last_assistant_message: z.string().optional() }),
]);

/**
 * Which notification types wait on the user. idle_prompt ("waiting for your input", a minute after
 * a turn) is left out: Stop already said the turn ended. Types from the 2.1.332 binary.
 */
const NOTIFICATION_KINDS: Record<string, TranscriptMoment["kind"]> = {
  permission_prompt: "needs-approval",
  worker_permission_prompt: "needs-approval",
  agent_needs_input: "question",
};

async function signal(payload: unknown, receivedAt: string): Promise<TranscriptMoment | undefined> {
  const parsed = payloadSchema.safeParse(payload);
  if (!parsed.success) return undefined;
  const event = parsed.data;
  const common = hookMomentBase(event, receivedAt);
  if (event.hook_event_name === "Notification") {
    const kind = NOTIFICATION_KINDS[event.notification_type ?? ""];
    return kind ? { ...common, kind, text: event.message } : undefined;
  }
  const text = event.last_assistant_message ?? (await lastAssistantText(event.transcript_path)) ?? "";
  return { ...common, kind: "finished", text };
}

// Enough for the last few lines; a transcript can be many megabytes.
const TAIL_BYTES = 256 * 1024;

/** Older builds' Stop carried no last message: the transcript's last main-thread assistant text. */
async function lastAssistantText(transcript: string | undefined): Promise<string | undefined> {
  if (!transcript || !path.isAbsolute(transcript)) return undefined;
  let tail: string;
  try {
    const handle = await fs.open(transcript, "r");
    try {
      const { size } = await handle.stat();
      const length = Math.min(size, TAIL_BYTES);
      const buffer = Buffer.alloc(length);
      await handle.read(buffer, 0, length, size - length);
      tail = buffer.toString("utf8");
    } finally {
      await handle.close();
    }
  } catch {
    return undefined;
  }
  for (const line of tail.split("\n").reverse()) {
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      continue; // the first line of the tail may be cut
    }
    if (!isObject(entry) || entry.type !== "assistant" || entry.isSidechain === true) continue;
    const content = isObject(entry.message) ? entry.message.content : undefined;
    if (!Array.isArray(content)) continue;
    const text = content
      .map((block: unknown) =>
        isObject(block) && block.type === "text" && typeof block.text === "string" ? block.text : "",
      )
      .join("")
      .trim();
    if (text) return text;
  }
  return undefined;
}

export const claudeHooks: HarnessHooks = {
  settingsFile: (home) => path.join(home, "settings.json"),
  add: (text, command, file) => addJsonHooks(SHAPE, text, command, file),
  isPresent: (text, command) => hasJsonHooks(SHAPE, text, command),
  signal,
};
