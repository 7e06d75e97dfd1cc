import path from "node:path";
import * as z from "zod";
import { addJsonHooks, hasJsonHooks, type JsonHookShape } from "../shared/hooks.js";
import type { HarnessHooks, TranscriptMoment } from "../types.js";

/**
 * Offrun's hook for Grok Build, from xAI's published source (xai-org/grok-build 1.0.6,
 * crates/codegen/): personal hooks are every `*.json` in `$GROK_HOME/hooks/` (user guide
 * 10-hooks.md), in Claude's shape with `timeout` in seconds, and event keys in either spelling
 * ("Stop" or "stop", xai-grok-hooks/src/event.rs). So Offrun writes a file of its own there, and
 * uninstall deletes it.
 *
 * The event reaches the hook on stdin as camelCase JSON whose `hookEventName` is snake case:
 * `"stop"` (HookEventEnvelope). A turn that completes fires it with `reason: "end_turn"` and
 * `lastAssistantMessage` (stop_gate.rs, build_stop_payload); the session's end fires another,
 * observe-only, with the end's reason and no message (dispatch_session_end_stop), which is not a
 * turn that finished. A rate limit fires `stop_failure` with `error: "rate_limit"`, which Grok
 * also uses for capacity errors, so it is not read as a usage limit.
 */
const SHAPE: JsonHookShape = { events: ["Stop"], timeout: 5 };

const payloadSchema = z.object({
  hookEventName: z.literal("stop"),
  sessionId: z.string().min(1),
  cwd: z.string().optional(),
  reason: z.string().optional(),
  promptId: z.string().optional(),
  lastAssistantMessage: z.string().optional(),
});

async function signal(payload: unknown, receivedAt: string): Promise<TranscriptMoment | undefined> {
  const parsed = payloadSchema.safeParse(payload);
  if (!parsed.success) return undefined;
  const { sessionId, cwd, reason, promptId, lastAssistantMessage } = parsed.data;
  if (reason !== undefined && reason !== "end_turn") return undefined;
  return {
    kind: "finished",
    sessionId,
    ...(promptId ? { eventId: promptId } : {}),
    ...(cwd ? { cwd } : {}),
    text: lastAssistantMessage ?? "",
    at: receivedAt,
  };
}

export const grokHooks: HarnessHooks = {
  settingsFile: (home) => path.join(home, "hooks", "offrun.json"),
  add: (text, command, file) => addJsonHooks(SHAPE, text, command, file),
  isPresent: (text, command) => hasJsonHooks(SHAPE, text, command),
  signal,
};
