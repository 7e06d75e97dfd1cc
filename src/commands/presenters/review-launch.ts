import fs from "node:fs/promises";
import * as z from "zod";
import { readChat } from "../../core/records/records.js";
import { parseEventLine, type ReviewEvent } from "../../core/foundation/events.js";
import { agentNameProblem } from "../../core/foundation/names.js";
import { fileLines } from "../../core/foundation/lines.js";
import { mirrorFile } from "../../core/companion/mirror.js";

/**
 * What a finished review's notification hands Review Changes (src/core/notify/deeplink.ts): the
 * agent and the review's id. Raycast passes it as `launchContext`; it came through a URL, so it is
 * checked like any input from outside.
 */
export const reviewLaunchContextSchema = z.object({
  project: z.string().min(1),
  // A name that could be a path is refused before it reaches one.
  agent: z
    .string()
    .min(1)
    .refine((name) => agentNameProblem(name) === undefined, "not an agent name"),
  /** Another machine's agent (core/remote): `project` is a path there. */
  host: z.string().min(1).optional(),
  review: z.string().min(1),
});
export type ReviewLaunchContext = z.infer<typeof reviewLaunchContextSchema>;

/** The launch context when it names a review; undefined for none or any other (the list opens). */
export function reviewLaunch(context: unknown): ReviewLaunchContext | undefined {
  const parsed = reviewLaunchContextSchema.safeParse(context);
  return parsed.success ? parsed.data : undefined;
}

/**
 * The review the context names, from the agent's chat log, where every review is kept (a host's
 * agent: the companion's copy of its log). Undefined when the log has no such review (discarded).
 */
export async function loadLaunchedReview(context: ReviewLaunchContext): Promise<ReviewEvent | undefined> {
  if (!context.host) {
    const events = (await readChat(context.project, context.agent)).entries;
    return events.findLast((e): e is ReviewEvent => e.type === "review" && e.id === context.review);
  }
  // A host's copy may hold hundreds of MB: read as a stream, line by line, never whole.
  const file = mirrorFile(context.host, context.project, context.agent);
  const size = (await fs.stat(file).catch(() => undefined))?.size ?? 0;
  let found: ReviewEvent | undefined;
  for await (const line of fileLines(file, size)) {
    const event = parseEventLine(line);
    if (event?.type === "review" && event.id === context.review) found = event;
  }
  return found;
}
