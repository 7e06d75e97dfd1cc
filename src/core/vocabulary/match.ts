import { lookupPhrase, type Vocabulary, type VocabularyEntry } from "./vocabulary.js";
import { DOT_WORD, type Token } from "./words.js";

/** A phrase of the vocabulary found in the text, from a token to `lastIndex`. */
export interface Match {
  entry: VocabularyEntry;
  /** Longer phrases start with this one. */
  extends: boolean;
  lastIndex: number;
}

/** The longest phrase that starts with token `i`, found by extending the key while some phrase still starts with it. */
export function longestMatchAt(
  text: string,
  tokens: readonly Token[],
  i: number,
  vocabulary: Vocabulary,
): Match | undefined {
  const first = tokens[i]!;
  if (!first.startsWord) return undefined;
  let key = "";
  let best: Match | undefined;
  for (let j = i; j < tokens.length; j++) {
    const token = tokens[j]!;
    if (j > i && token.startsWord && !isSpaceGap(text, tokens[j - 1]!.end, token.start)) break;
    key = j === i ? token.norm : `${key} ${token.norm}`;
    const found = lookupPhrase(vocabulary, key);
    if (found === undefined) break;
    if (found.entry !== undefined && token.endsWord)
      best = { entry: found.entry, extends: found.extends, lastIndex: j };
    if (!found.extends) break;
  }
  return best;
}

/** Spaces and tabs only, at least one: dictation's word gaps. */
export function isSpaceGap(text: string, from: number, to: number): boolean {
  if (to <= from) return false;
  for (let k = from; k < to; k++) {
    const c = text.charCodeAt(k);
    if (c !== 32 && c !== 9 && c !== 0xa0) return false;
  }
  return true;
}

/** At most this many words joined into one per phrase, and this many steps of the search per token. */
const MAX_JOINS = 3;
const MAX_STEPS = 64;

/**
 * The longest phrase that starts with token `i` once some neighbouring words are joined into one:
 * recognizers split what the code writes as one word, because their dictionaries lack it
 * (PocketSphinx 0.8 has no "backoff": "retry back off helper"), because it sounds like two ("help
 * her"), or because it is spelled out ("upload dot test dot j s"); whisper.cpp writes "back-off".
 * Words joined across a space or one hyphen; a spoken "dot" is never joined, and a hyphen never
 * separates two words of a phrase ("retry-backoff-helper" is a spelling of its own and stays).
 * Only matches that join at least two words are returned: the rest is longestMatchAt's.
 */
export function longestJoinedAt(
  text: string,
  tokens: readonly Token[],
  i: number,
  vocabulary: Vocabulary,
): Match | undefined {
  const first = tokens[i]!;
  if (!first.startsWord) return undefined;
  let best: Match | undefined;
  let steps = 0;
  const visit = (j: number, key: string, joins: number): void => {
    if (++steps > MAX_STEPS) return;
    const token = tokens[j]!;
    if (joins > 0 && token.endsWord && (best === undefined || j > best.lastIndex)) {
      const found = lookupPhrase(vocabulary, key);
      if (found?.entry !== undefined) best = { entry: found.entry, extends: found.extends, lastIndex: j };
    }
    const next = tokens[j + 1];
    if (next === undefined) return;
    const spaced = `${key} ${next.norm}`;
    // The digits of "v2" are a word of their own in a key, with nothing between them in the text.
    if (!next.startsWord) {
      if (next.start === token.end && startsSomeKey(vocabulary, spaced)) visit(j + 1, spaced, joins);
      return;
    }
    const space = isSpaceGap(text, token.end, next.start);
    const hyphen = text.slice(token.end, next.start) === "-";
    const joined = key + next.norm;
    const dot = token.norm === DOT_WORD || next.norm === DOT_WORD;
    if (!dot && joins < MAX_JOINS && (space || hyphen) && startsSomeKey(vocabulary, joined))
      visit(j + 1, joined, joins + 1);
    if (space && startsSomeKey(vocabulary, spaced)) visit(j + 1, spaced, joins);
  };
  if (startsSomeKey(vocabulary, first.norm)) visit(i, first.norm, 0);
  return best;
}

/** Some phrase's key starts with `prefix`, even inside a word ("retry back" of "retry backoff helper"). */
function startsSomeKey(vocabulary: Vocabulary, prefix: string): boolean {
  const { keys } = vocabulary;
  let low = 0;
  let high = keys.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (keys[middle]! < prefix) low = middle + 1;
    else high = middle;
  }
  return keys[low]?.startsWith(prefix) ?? false;
}
