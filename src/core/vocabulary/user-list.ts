import path from "node:path";
import * as z from "zod";
import { OffrunError } from "../foundation/errors.js";
import { projectPaths } from "../foundation/paths.js";
import { readJsonFile } from "../foundation/store.js";
import { keyOfText } from "./words.js";

/**
 * `.offrun/vocabulary.json`: the user's own phrases, spoken phrase -> spelling, which win over
 * the code's. A spelling of null stops a phrase from ever being rewritten.
 *
 *   { "cube control": "kubectl", "retry helper": "retryBackoffHelper", "user name": null }
 */
export const userVocabularyFileSchema = z
  .record(
    z.string(),
    z
      .string()
      .min(1, "a spelling cannot be empty (use null to stop the phrase being rewritten)")
      .max(500, "a spelling is at most 500 characters")
      .refine((spelling) => !/[\r\n]/.test(spelling), "a spelling is one line")
      .nullable(),
  )
  // Checked here rather than in a key schema, so that the message names the phrase (zod reports a
  // failed record key only as "Invalid key in record"), and also when a spelling failed, so that
  // one read of the error lists every problem.
  .superRefine(
    (data, context) => {
      for (const phrase of Object.keys(data)) {
        const problem =
          phrase.length > 200
            ? "a phrase is at most 200 characters"
            : keyOfText(phrase) === ""
              ? "a phrase needs at least one letter or digit"
              : undefined;
        if (problem !== undefined) context.addIssue({ code: "custom", path: [phrase], message: problem });
      }
    },
    { when: (payload) => typeof payload.value === "object" && payload.value !== null && !Array.isArray(payload.value) },
  );

/** The user's entries, keyed like code phrases. */
export type UserVocabulary = { phrase: string; key: string; spelling: string | null }[];

const FIX =
  'It maps spoken phrases to spellings, e.g. {"retry helper": "retryBackoffHelper", "user name": null} ' +
  "(null: never rewrite the phrase). Fix it, or delete it to use only the names found in the code.";

export function userVocabularyFile(root: string): string {
  return path.join(projectPaths(root).offrun, "vocabulary.json");
}

/** Reads the project's list; empty when the file does not exist. Errors name the file, the phrase and the fix. */
export async function readUserVocabulary(root: string): Promise<UserVocabulary> {
  const file = userVocabularyFile(root);
  const data = await readJsonFile(file, userVocabularyFileSchema, FIX);
  return data === undefined ? [] : toUserVocabulary(file, data);
}

/** Two phrases that differ only in case or punctuation would silently shadow each other: refuse them. */
export function toUserVocabulary(file: string, data: z.output<typeof userVocabularyFileSchema>): UserVocabulary {
  const seen = new Map<string, string>();
  const entries: UserVocabulary = [];
  for (const [phrase, spelling] of Object.entries(data)) {
    const key = keyOfText(phrase);
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      throw new OffrunError(
        "invalid_file",
        `${file} is not valid:\n  "${earlier}" and "${phrase}" are the same spoken phrase. Keep one of them.\n${FIX}`,
      );
    }
    seen.set(key, phrase);
    entries.push({ phrase, key, spelling });
  }
  return entries;
}
