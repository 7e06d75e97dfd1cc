import {
  loadProjectVocabulary as loadVocabulary,
  rewriteDictation,
  type Vocabulary,
} from "../../core/vocabulary/index.js";

/**
 * The vocabulary call site of the Raycast forms: dictated and typed text get the project's
 * spellings ("retry backoff helper" -> `retryBackoffHelper`) from src/core/vocabulary.
 */

export async function loadProjectVocabulary(root: string): Promise<Vocabulary> {
  return (await loadVocabulary(root)).vocabulary;
}

/**
 * Dictated or typed text with the project's spellings. `partial` while the user is still typing
 * (a phrase at the very end waits for its next word).
 */
export function applyVocabulary(text: string, vocabulary: Vocabulary | undefined, partial: boolean): string {
  if (!vocabulary || text === "") return text;
  return rewriteDictation(text, vocabulary, { partial }).text;
}
