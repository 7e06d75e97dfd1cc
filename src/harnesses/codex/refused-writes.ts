import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import * as z from "zod";
import type { ParsedEvent } from "../../core/foundation/events.js";

/**
 * Writes Codex's read-only sandbox refused. Codex 0.171.0 says nothing about them in `exec --json`:
 * a refused patch shows only on stderr (`ERROR codex_core::tools::router: error=patch rejected:
 * writing is blocked by read-only sandbox…`, without the path), and a shell write fails inside the
 * sandbox like any command (not even a command_execution item). The thread's rollout has both: each
 * `function_call` / `custom_tool_call` and, under the same call_id, the output the model was given.
 */

type Denial = Extract<ParsedEvent, { type: "denial" }>;

/** What the sandbox's refusals read like in a tool's output (Linux, bubblewrap; checked with 0.171.0). */
const REFUSED = [/writing is blocked by read-only sandbox/, /Read-only file system/];

const STDERR_REFUSAL = /error=(patch rejected: writing is blocked by read-only sandbox[^\n]*)/g;

const lineSchema = z.looseObject({
  type: z.literal("response_item"),
  payload: z.looseObject({ type: z.string(), call_id: z.string().optional() }),
});
const callSchema = z.looseObject({
  call_id: z.string(),
  name: z.string(),
  arguments: z.string().optional(),
  input: z.string().optional(),
});
const outputSchema = z.looseObject({ call_id: z.string(), output: z.unknown() });
const callArgumentsSchema = z.looseObject({
  cmd: z.union([z.string(), z.array(z.string())]).optional(),
  input: z.string().optional(),
});

/** Refused writes in a rollout's lines, in order: the call as the model made it, when its output says the sandbox refused. */
export function refusedWritesInRollout(lines: readonly string[]): Denial[] {
  const calls = new Map<string, z.infer<typeof callSchema>>();
  const denials: Denial[] = [];
  for (const raw of lines) {
    // Cheap test first: rollouts carry the whole prompt and are large.
    if (!raw.includes('"response_item"') || !raw.includes("call")) continue;
    const line = lineSchema.safeParse(parseJson(raw));
    if (!line.success) continue;
    const { payload } = line.data;
    if (payload.type === "function_call" || payload.type === "custom_tool_call") {
      const call = callSchema.safeParse(payload);
      if (call.success) calls.set(call.data.call_id, call.data);
      continue;
    }
    if (payload.type !== "function_call_output" && payload.type !== "custom_tool_call_output") continue;
    const output = outputSchema.safeParse(payload);
    if (!output.success) continue;
    const text = typeof output.data.output === "string" ? output.data.output : JSON.stringify(output.data.output);
    const call = calls.get(output.data.call_id);
    if (!call || !REFUSED.some((pattern) => pattern.test(text ?? ""))) continue;
    denials.push({ type: "denial", tool: call.name, input: describeCall(call) });
  }
  return denials;
}

/** Refused patches as stderr tells them (no path): for when the rollout cannot be read. */
export function refusedWritesInStderr(stderr: string): Denial[] {
  return [...stderr.matchAll(STDERR_REFUSAL)].map((match) => ({
    type: "denial",
    tool: "apply_patch",
    input: { reason: match[1] ?? "patch rejected" },
  }));
}

/**
 * The rollout of a thread, read at once: the parser's finish() is synchronous, and a reviewer's
 * rollout holds one turn. Undefined when there is none (or it cannot be read).
 */
export function readCodexRolloutSync(codexHome: string, threadId: string): string[] | undefined {
  const root = path.join(codexHome, "sessions");
  const suffix = `-${threadId}.jsonl`;
  // Newest day first: the thread was just written.
  for (const year of listDesc(root)) {
    for (const month of listDesc(path.join(root, year))) {
      for (const day of listDesc(path.join(root, year, month))) {
        const dir = path.join(root, year, month, day);
        const hit = listDesc(dir).find((name) => name.startsWith("rollout-") && name.endsWith(suffix));
        if (!hit) continue;
        try {
          return readFileSync(path.join(dir, hit), "utf8").split("\n");
        } catch {
          return undefined;
        }
      }
    }
  }
  return undefined;
}

function describeCall(call: z.infer<typeof callSchema>): Record<string, unknown> {
  const args = call.arguments === undefined ? undefined : parseJson(call.arguments);
  const parsed = callArgumentsSchema.safeParse(args);
  // apply_patch is a freeform tool (the input is the patch) or, with older model metadata, a
  // function taking {input}; the patch's headers name the files.
  const patch = call.input ?? (parsed.success ? parsed.data.input : undefined);
  if (patch !== undefined) {
    const files = [...patch.matchAll(/^\*\*\* (?:Add|Update|Delete) File: (.+)$/gm)].map((m) => m[1]);
    return { ...(files.length > 0 ? { path: files.join(", ") } : {}), patch };
  }
  if (parsed.success && parsed.data.cmd !== undefined) return { command: [parsed.data.cmd].flat().join(" ") };
  return { arguments: args ?? call.arguments ?? null };
}

function listDesc(dir: string): string[] {
  try {
    return readdirSync(dir).sort().reverse();
  } catch {
    return [];
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
