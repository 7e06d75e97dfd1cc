import path from "node:path";
import * as z from "zod";
import { addJsonHooks, hasJsonHooks, type JsonHookShape } from "../shared/hooks.js";
import type { HarnessHooks, TranscriptMoment } from "../types.js";

/**
 * Offrun's hook for Grok Build, from xAI's documentation only (docs.x.ai/build/features/hooks; no
 * Grok Build binary runs here, so nothing is recorded): personal hooks are every `*.json` in
 * `~/.grok/hooks/` (GROK_HOME moves `~/.grok`), in Claude's shape, `timeout` in seconds; the event
 * arrives on stdin as camelCase JSON with `hookEventName`, `sessionId`, `cwd`. So Offrun writes
 * a file of its own there, and uninstall deletes it.
 *
 * Only Stop is used: the documentation names no field for the last message, nor the fields of a
 * Notification (its types idle_prompt / permission_prompt / task_complete come from HARNESSES.md,
 * not from a payload seen), nor how StopFailure says "rate_limit". A Stop notifies "finished"
 * with the session id as its body.
 */
const SHAPE: JsonHookShape = { events: ["Stop"], timeout: 5 };

const payloadSchema = z.object({
  hookEventName: z.literal("Stop"),
  sessionId: z.string().min(1),
  cwd: z.string().optional(),
});

async function signal(payload: unknown, receivedAt: string): Promise<TranscriptMoment | undefined> {
  const parsed = payloadSchema.safeParse(payload);
  if (!parsed.success) return undefined;
  return {
    kind: "finished",
    sessionId: parsed.data.sessionId,
    ...(parsed.data.cwd ? { cwd: parsed.data.cwd } : {}),
    text: "",
    at: receivedAt,
  };
}

export const grokHooks: HarnessHooks = {
  settingsFile: (home) => path.join(home, "hooks", "offrun.json"),
  add: (text, command, file) => addJsonHooks(SHAPE, text, command, file),
  isPresent: (text, command) => hasJsonHooks(SHAPE, text, command),
  signal,
};
