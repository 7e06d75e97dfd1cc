import type { AgentRecord } from "../foundation/model.js";
import { REVIEW_JSON_SCHEMA } from "./output.js";
import type { AuthorChanges } from "../git/review-scratch.js";

/** More diff than this is cut from the prompt: the reviewer can read every file in its checkout anyway. */
const PROMPT_DIFF_CHARS = 200_000;

/**
 * The reviewer's one message. The JSON shape is spelled out for every CLI, also those that get
 * the schema natively: a CLI without structured output must be told, and one with it loses nothing.
 */
export function buildReviewPrompt(record: AgentRecord, changes: AuthorChanges): string {
  const diff =
    changes.textPatch.length > PROMPT_DIFF_CHARS
      ? `${changes.textPatch.slice(0, PROMPT_DIFF_CHARS)}\n[... diff cut at ${PROMPT_DIFF_CHARS} characters; read the files in your working directory for the rest]`
      : changes.textPatch;
  return [
    "You are reviewing another coding agent's work. Your working directory is a read-only copy of the",
    `repository at the agent's base commit ${record.base.slice(0, 12)} with the agent's changes applied.`,
    "Do not change any file: read, search and reason only.",
    "",
    `The agent's task: ${record.task}`,
    "",
    changes.commits.length > 0
      ? `Commits on the agent's branch since the base:\n${changes.commits.map((c) => `- ${c}`).join("\n")}`
      : "The agent made no commits; all of its work is uncommitted.",
    "",
    `Changed files (${changes.files.length}): ${changes.files.join(", ") || "none"}`,
    "",
    "The diff against the base:",
    "```diff",
    diff,
    "```",
    "",
    "Look for bugs, missing cases, broken tests, security problems and unclear code in the changed lines.",
    "Answer with JSON only, no prose around it, matching this JSON Schema:",
    JSON.stringify(REVIEW_JSON_SCHEMA),
    'verdict is "approve" when nothing must change, "changes_requested" when something must, else "comment".',
    "Each finding names a changed file (path from the repository root) and the line in its new version.",
  ].join("\n");
}
