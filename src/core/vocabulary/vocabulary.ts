import { fileNameWords, identifierWords, type CodeNames } from "./extract.js";
import type { UserVocabulary } from "./user-list.js";
import { isDistinctiveWords } from "./words.js";

/** One spoken phrase and the spelling it becomes. */
export interface VocabularyEntry {
  /** The phrase's key (words.ts): "retry backoff helper", "upload dot test dot js". */
  key: string;
  spelling: string;
  /** How often the spelling occurs in the code (a file name: how many files have it); 0 for the user's. */
  count: number;
  /** Other spellings in the code with the same words, most frequent first (at most MAX_ALTERNATIVES). */
  alternatives: string[];
  source: "code" | "user";
  /** A name from the code (wrapped in backticks unless the caller turns that off). */
  isCode: boolean;
}

/**
 * A project's vocabulary, ready for rewriteDictation: build it once, use it on every keystroke.
 * The keys are sorted by UTF-16 code unit, so one binary search finds a phrase and also tells
 * whether longer phrases start with it (they sort right after it: a space sorts before any letter
 * or digit). A sorted array loads from the cache as it is, where a hash table of every phrase and
 * every phrase's beginnings took longer to fill than the whole scan of the code.
 */
export interface Vocabulary {
  readonly keys: readonly string[];
  /** `entries[i]` is the entry of `keys[i]`. */
  readonly entries: readonly VocabularyEntry[];
}

/** What a key is in a vocabulary: a whole phrase, the start of longer ones, both, or neither (undefined). */
export interface PhraseLookup {
  entry: VocabularyEntry | undefined;
  /** Some longer phrase starts with this key followed by a space. */
  extends: boolean;
}

export function lookupPhrase(vocabulary: Vocabulary, key: string): PhraseLookup | undefined {
  const { keys, entries } = vocabulary;
  let low = 0;
  let high = keys.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (keys[middle]! < key) low = middle + 1;
    else high = middle;
  }
  const entry = keys[low] === key ? entries[low] : undefined;
  const after = keys[entry === undefined ? low : low + 1];
  const longer = after !== undefined && after.length > key.length && after.startsWith(key) && after[key.length] === " ";
  return entry === undefined && !longer ? undefined : { entry, extends: longer };
}

export const compareKeys = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

const MAX_ALTERNATIVES = 5;

/**
 * Turns the names counted in a project into one entry per spoken phrase, sorted by key. Phrases
 * that could be ordinary speech are dropped (isDistinctiveWords). When several spellings share
 * the words, the most frequent wins; a tie goes to the spelling that sorts first by code unit, so
 * the same code always gives the same answer.
 */
export function buildCodeEntries(names: CodeNames): VocabularyEntry[] {
  // Most phrases have one spelling: keep the first apart, and a list only for the rest.
  const first = new Map<string, Candidate>();
  const more = new Map<string, Candidate[]>();
  const add = (spelling: string, count: number, words: string[] | undefined) => {
    if (words === undefined || !isDistinctiveWords(words)) return;
    const key = words.join(" ");
    if (!first.has(key)) first.set(key, { spelling, count });
    else if (more.has(key)) more.get(key)!.push({ spelling, count });
    else more.set(key, [{ spelling, count }]);
  };
  for (const [name, count] of names.identifiers) add(name, count, identifierWords(name));
  for (const [name, count] of names.fileNames) add(name, count, fileNameWords(name));

  const entries: VocabularyEntry[] = [];
  // The default sort compares UTF-16 code units, as compareKeys does, and is much faster than a comparator.
  for (const key of [...first.keys()].sort()) {
    let best = first.get(key)!;
    let alternatives: string[] = [];
    const others = more.get(key);
    if (others !== undefined) {
      const ranked = [best, ...others].sort(byCountThenSpelling);
      best = ranked[0]!;
      // A name that is both an identifier and a file name is one spelling, not an alternative to itself.
      alternatives = [...new Set(ranked.slice(1).map((other) => other.spelling))]
        .filter((spelling) => spelling !== best.spelling)
        .slice(0, MAX_ALTERNATIVES);
    }
    entries.push({ key, spelling: best.spelling, count: best.count, alternatives, source: "code", isCode: true });
  }
  return entries;
}

interface Candidate {
  spelling: string;
  count: number;
}

function byCountThenSpelling(a: Candidate, b: Candidate): number {
  if (a.count !== b.count) return b.count - a.count;
  return compareKeys(a.spelling, b.spelling);
}

/**
 * The vocabulary from the code's entries (sorted by key, as buildCodeEntries returns them) and
 * the user's list. A user entry replaces the code's entry for the same phrase, and a user phrase
 * mapped to null removes it. A user spelling that is itself a name in the code is treated as code
 * (backticks); any other is inserted as written.
 */
export function createVocabulary(code: readonly VocabularyEntry[], user: UserVocabulary = []): Vocabulary {
  if (user.length === 0) return { keys: code.map((entry) => entry.key), entries: code };
  const userKeys = new Set(user.map((entry) => entry.key));
  const codeSpellings = new Set<string>();
  for (const entry of code) {
    codeSpellings.add(entry.spelling);
    for (const alternative of entry.alternatives) codeSpellings.add(alternative);
  }
  const mine: VocabularyEntry[] = [];
  for (const { key, spelling } of user) {
    if (spelling === null) continue;
    mine.push({ key, spelling, count: 0, alternatives: [], source: "user", isCode: codeSpellings.has(spelling) });
  }
  mine.sort((a, b) => compareKeys(a.key, b.key));
  // A merge of two sorted lists: the code's list is long, the user's short.
  const entries: VocabularyEntry[] = [];
  let u = 0;
  for (const entry of code) {
    while (u < mine.length && mine[u]!.key < entry.key) entries.push(mine[u++]!);
    if (!userKeys.has(entry.key)) entries.push(entry);
  }
  while (u < mine.length) entries.push(mine[u++]!);
  return { keys: entries.map((entry) => entry.key), entries };
}
