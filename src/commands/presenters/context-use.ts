import fs from "node:fs/promises";
import { parseEventLine, type AgentEvent } from "../../core/foundation/events.js";
import { splitJsonl } from "../../core/foundation/store.js";

/** What the last `usage` event of an agent's log says about its context. */
export interface ContextUse {
  /** Tokens in the model's context on the last call: input plus cache reads and writes. */
  tokens: number;
  /** The model that answered (the stream's session event), else the one the agent was started with. */
  model?: string;
}

/** The last usage event of a chat log (an agent's, or a host's copy of one), from its last 64 KB (logs grow long). */
export async function readContextUse(file: string): Promise<ContextUse | undefined> {
  const events = await readChatTail(file, 64 * 1024);
  const usage = events.findLast((e) => e.type === "usage");
  if (!usage || usage.type !== "usage") return undefined;
  const session = events.findLast((e) => e.type === "session" && e.model !== undefined);
  const model = session?.type === "session" ? session.model : undefined;
  return {
    tokens: usage.inputTokens + (usage.cacheReadTokens ?? 0) + (usage.cacheWriteTokens ?? 0),
    ...(model ? { model } : {}),
  };
}

/** The events in the last `bytes` of a chat log; the first, partial line is skipped. */
export async function readChatTail(file: string, bytes: number): Promise<AgentEvent[]> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, "r");
  } catch {
    return [];
  }
  try {
    const { size } = await handle.stat();
    const start = Math.max(0, size - bytes);
    const buffer = Buffer.alloc(size - start);
    await handle.read(buffer, 0, buffer.length, start);
    const lines = splitJsonl(buffer.toString("utf8"));
    if (start > 0) lines.shift();
    return lines.flatMap((line) => parseEventLine(line) ?? []);
  } finally {
    await handle.close();
  }
}
