/**
 * The project vocabulary: spoken phrases -> the spellings the code uses. Faces load a project's
 * vocabulary once (`loadProjectVocabulary`, cached) and call `rewriteDictation` on every change of
 * the prompt text (synchronous, well under a millisecond for a sentence).
 */
export { loadProjectVocabulary, forgetVocabularies, type ProjectVocabulary, type VocabularyStats } from "./load.js";
export { rewriteDictation, type Rewrite, type RewriteOptions, type RewriteResult } from "./rewrite.js";
export { buildCodeEntries, createVocabulary, type Vocabulary, type VocabularyEntry } from "./vocabulary.js";
export { readUserVocabulary, userVocabularyFile, type UserVocabulary } from "./user-list.js";
