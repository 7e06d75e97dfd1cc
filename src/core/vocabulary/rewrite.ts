import { isSpaceGap, longestJoinedAt, longestMatchAt, type Match } from "./match.js";
import type { Vocabulary } from "./vocabulary.js";
import { tokenizeText, type Token } from "./words.js";

export interface RewriteOptions {
  /** Wrap names from the code in backticks (default true), as a prompt would quote code. */
  backticks?: boolean;
  /**
   * The text is still being typed or dictated: a phrase at the very end that a longer phrase
   * starts with ("retry backoff" of "retry backoff helper") is left alone until the next word shows
   * which it is. A face that rewrites on every keystroke sets this; a final pass does not.
   */
  partial?: boolean;
}

/** One replacement, with where it was in the original text. */
export interface Rewrite {
  start: number;
  end: number;
  /** The original words ("Retry backoff helper"). */
  spoken: string;
  /** What replaced them, without the backticks. */
  spelling: string;
  source: "code" | "user";
  /** Other spellings in the code with the same words, for a face that offers a choice. */
  alternatives: readonly string[];
}

export interface RewriteResult {
  text: string;
  rewrites: Rewrite[];
}

/**
 * Rewrites the phrases of `text` that name something in the project. The rules:
 * - Longest match first, left to right: "retry backoff helper" beats "retry backoff".
 * - Case, number words ("two" = "2") and letters next to digits ("v2" = "v 2") do not matter.
 * - Nor do words said apart that the code joins: "retry back off helper", "upload dot test dot
 *   j s", "back-off" (match.ts, longestJoinedAt); the words as the code splits them come first.
 * - A phrase is whole words separated only by spaces or tabs: punctuation around it stays
 *   ("Retry backoff helper." -> "`retryBackoffHelper`."), punctuation inside it ("retry, backoff
 *   helper") means it is not one phrase, and a line break ends a phrase.
 * - Which phrases exist is the vocabulary's business (vocabulary.ts): multi-word code names that
 *   are not ordinary speech, file names with their dots, and the user's list.
 * - Text between backticks already is not wrapped again.
 */
export function rewriteDictation(text: string, vocabulary: Vocabulary, options: RewriteOptions = {}): RewriteResult {
  const backticks = options.backticks ?? true;
  const tokens = tokenizeText(text);
  const rewrites: Rewrite[] = [];
  const pieces: string[] = [];
  let copiedUpTo = 0;
  let i = 0;
  while (i < tokens.length) {
    const match = longerMatch(
      longestMatchAt(text, tokens, i, vocabulary),
      longestJoinedAt(text, tokens, i, vocabulary),
    );
    if (match === undefined || (options.partial && mightGrow(text, tokens, match))) {
      i += 1;
      continue;
    }
    const first = tokens[i]!;
    const last = tokens[match.lastIndex]!;
    const { entry } = match;
    const quoted = text[first.start - 1] === "`" && text[last.end] === "`";
    pieces.push(text.slice(copiedUpTo, first.start));
    pieces.push(entry.isCode && backticks && !quoted ? `\`${entry.spelling}\`` : entry.spelling);
    copiedUpTo = last.end;
    rewrites.push({
      start: first.start,
      end: last.end,
      spoken: text.slice(first.start, last.end),
      spelling: entry.spelling,
      source: entry.source,
      alternatives: entry.alternatives,
    });
    i = match.lastIndex + 1;
  }
  if (rewrites.length === 0) return { text, rewrites };
  pieces.push(text.slice(copiedUpTo));
  return { text: pieces.join(""), rewrites };
}

/** The match that reaches further; the words as the code splits them win a tie. */
function longerMatch(exact: Match | undefined, joined: Match | undefined): Match | undefined {
  if (joined === undefined) return exact;
  return exact === undefined || joined.lastIndex > exact.lastIndex ? joined : exact;
}

/**
 * While typing: the match could still become a longer phrase when nothing but spaces and at most
 * one (unfinished) word follow it to the end of the text.
 */
function mightGrow(text: string, tokens: readonly Token[], match: Match): boolean {
  if (!match.extends) return false;
  const after = tokens.length - 1 - match.lastIndex;
  if (after > 1) return false;
  const matchEnd = tokens[match.lastIndex]!.end;
  if (after === 0) return /^[ \t\u00a0]*$/.test(text.slice(matchEnd));
  const next = tokens[match.lastIndex + 1]!;
  return next.end === text.length && isSpaceGap(text, matchEnd, next.start);
}
