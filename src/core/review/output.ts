import * as z from "zod";

/**
 * What a reviewer must answer, as JSON. Every field is required and optional values are null, so
 * the same schema also passes strict structured-output modes (OpenAI's, which Codex uses).
 */
export const REVIEW_SEVERITIES = ["critical", "major", "minor", "nit"] as const;

export const reviewOutputSchema = z.object({
  verdict: z.enum(["approve", "changes_requested", "comment"]),
  summary: z.string().min(1),
  findings: z.array(
    z.object({
      file: z.string().min(1),
      line: z.number().int().positive().nullable().optional(),
      severity: z.enum(REVIEW_SEVERITIES),
      message: z.string().min(1),
      suggestion: z.string().nullable().optional(),
    }),
  ),
});
export type ReviewOutput = z.infer<typeof reviewOutputSchema>;

/** The JSON Schema handed to CLIs with native structured output (mirrors reviewOutputSchema). */
export const REVIEW_JSON_SCHEMA: Record<string, unknown> = {
  type: "object",
  additionalProperties: false,
  required: ["verdict", "summary", "findings"],
  properties: {
    verdict: { type: "string", enum: ["approve", "changes_requested", "comment"] },
    summary: { type: "string" },
    findings: {
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["file", "line", "severity", "message", "suggestion"],
        properties: {
          file: { type: "string", description: "path relative to the repository root" },
          line: { type: ["integer", "null"], description: "line in the new version of the file" },
          severity: { type: "string", enum: [...REVIEW_SEVERITIES] },
          message: { type: "string" },
          suggestion: { type: ["string", "null"], description: "the fix, when there is a concrete one" },
        },
      },
    },
  },
};

export type ExtractedReview = { ok: true; review: ReviewOutput } | { ok: false; problem: string };

/**
 * The review in a reviewer's final text: the whole text as JSON, else a fenced ```json block,
 * else the outermost braces. The first candidate that parses decides; its shape is then checked.
 */
export function extractReview(text: string): ExtractedReview {
  const trimmed = text.trim();
  if (trimmed === "") return { ok: false, problem: "The reviewer's final answer was empty." };
  const fenced = /```(?:json)?\s*\n([\s\S]*?)\n```/.exec(trimmed)?.[1];
  const first = trimmed.indexOf("{");
  const last = trimmed.lastIndexOf("}");
  const braces = first >= 0 && last > first ? trimmed.slice(first, last + 1) : undefined;
  for (const candidate of [trimmed, fenced, braces]) {
    if (candidate === undefined) continue;
    const json = parseJson(candidate);
    if (json === undefined) continue;
    const parsed = reviewOutputSchema.safeParse(json);
    if (parsed.success) return { ok: true, review: parsed.data };
    const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).slice(0, 5);
    return { ok: false, problem: `The reviewer's JSON does not match the review schema (${issues.join("; ")}).` };
  }
  return { ok: false, problem: "The reviewer's final answer is not JSON." };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
