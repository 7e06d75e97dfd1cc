import { COMMON_WORDS } from "./common-words.js";

/**
 * The one spoken form that code names and dictated text are both reduced to: lowercase words,
 * letters and digits apart ("v2" is "v 2"), number words as digits ("sixty four" is "64"), joined
 * by single spaces. Two strings name the same thing when their keys are equal.
 */

const UNITS = [
  "zero",
  "one",
  "two",
  "three",
  "four",
  "five",
  "six",
  "seven",
  "eight",
  "nine",
  "ten",
  "eleven",
  "twelve",
  "thirteen",
  "fourteen",
  "fifteen",
  "sixteen",
  "seventeen",
  "eighteen",
  "nineteen",
];
const TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"];
const NUMBER_WORDS: ReadonlyMap<string, number> = new Map([
  ...UNITS.map((word, value) => [word, value] as const),
  ...TENS.map((word, index) => [word, (index + 2) * 10] as const),
]);

/** The word "dot" as spoken in a file name ("upload dot test dot js"). */
export const DOT_WORD = "dot";

/** One normalized word of a phrase, with where it came from in the text it was read from. */
export interface Token {
  /** Lowercase, number words turned into digits. */
  norm: string;
  start: number;
  end: number;
  /** False for the second part of a word split at a letter/digit boundary ("v2" -> "v", "2"). */
  startsWord: boolean;
  endsWord: boolean;
}

const isDigits = (word: string) => /^[0-9]+$/.test(word);

/**
 * Number words become digits, and a tens word followed by a unit word ("sixty four",
 * "twenty-one") becomes one number, so that dictation and code agree however a number was said.
 * `joinable(a, b)` says whether two neighbours may be read as one number.
 */
function normalizeNumbers<T extends { norm: string }>(
  tokens: T[],
  merge: (first: T, second: T, value: string) => T,
  joinable: (first: T, second: T) => boolean,
): T[] {
  const out: T[] = [];
  for (const token of tokens) {
    const value = NUMBER_WORDS.get(token.norm);
    const current = value === undefined ? token : { ...token, norm: String(value) };
    const previous = out[out.length - 1];
    if (
      previous !== undefined &&
      value !== undefined &&
      value >= 1 &&
      value <= 9 &&
      /^[2-9]0$/.test(previous.norm) &&
      joinable(previous, token)
    ) {
      out[out.length - 1] = merge(previous, token, String(Number(previous.norm) + value));
      continue;
    }
    out.push(current);
  }
  return out;
}

/** ASCII character classes for the scans of code: other, lowercase, uppercase, digit, `_` or `$`. */
export const enum CharClass {
  Other = 0,
  Lower = 1,
  Upper = 2,
  Digit = 3,
  Joiner = 4,
}
const CLASSES = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  if (c >= 97 && c <= 122) CLASSES[c] = CharClass.Lower;
  else if (c >= 65 && c <= 90) CLASSES[c] = CharClass.Upper;
  else if (c >= 48 && c <= 57) CLASSES[c] = CharClass.Digit;
  else if (c === 95 || c === 36) CLASSES[c] = CharClass.Joiner;
}
/** A table lookup, not a regex: the cold build runs this on every character of the project. */
export const charClass = (code: number): CharClass => (code < 128 ? (CLASSES[code] as CharClass) : CharClass.Other);

/**
 * Splits one ASCII code name into its parts: camelCase, PascalCase, snake_case, SCREAMING_CASE,
 * kebab-case, digits. An acronym ends where a capitalised word begins: "XMLHttpRequest2" -> XML,
 * Http, Request, 2.
 */
export function splitIdentifier(identifier: string): string[] {
  const words: string[] = [];
  let start = -1;
  let previous = CharClass.Other;
  for (let i = 0; i < identifier.length; i++) {
    const kind = charClass(identifier.charCodeAt(i));
    if (kind === CharClass.Other || kind === CharClass.Joiner) {
      if (start >= 0) words.push(identifier.slice(start, i));
      start = -1;
    } else if (start < 0) {
      start = i;
    } else if (
      (kind === CharClass.Upper && previous === CharClass.Lower) ||
      (kind === CharClass.Digit) !== (previous === CharClass.Digit)
    ) {
      words.push(identifier.slice(start, i));
      start = i;
    } else if (kind === CharClass.Lower && previous === CharClass.Upper && i - 2 >= start) {
      if (charClass(identifier.charCodeAt(i - 2)) === CharClass.Upper) {
        words.push(identifier.slice(start, i - 1));
        start = i - 1;
      }
    }
    previous = kind;
  }
  if (start >= 0) words.push(identifier.slice(start));
  return words;
}

/** A code name's words as key words (see the top of this file); the rules of normalizeNumbers, without its objects. */
export function normalizeWords(words: readonly string[]): string[] {
  const norms: string[] = [];
  for (const word of words) {
    const lower = word.toLowerCase();
    const value = NUMBER_WORDS.get(lower);
    const previous = norms[norms.length - 1];
    if (value === undefined) norms.push(lower);
    else if (previous !== undefined && value >= 1 && value <= 9 && /^[2-9]0$/.test(previous)) {
      norms[norms.length - 1] = String(Number(previous) + value);
    } else norms.push(String(value));
  }
  return norms;
}

/**
 * Whether a phrase from the code may rewrite dictation. A spoken "dot" marks a file name on
 * purpose, so any file phrase with a dot counts; otherwise the phrase needs two words that are
 * not everyday English (digits do not count as words at all): "retry backoff helper" yes,
 * "for each", "is valid", "get config", "end to end" no.
 */
export function isDistinctiveWords(words: readonly string[]): boolean {
  if (words.length < 2) return false;
  let distinctive = 0;
  for (const word of words) {
    if (word === DOT_WORD) return true;
    if (!isDigits(word) && !COMMON_WORDS.has(word)) distinctive += 1;
  }
  return distinctive >= 2;
}

export const isDistinctivePhrase = (key: string): boolean => isDistinctiveWords(key.split(" "));

// A dictated word: letters and digits of any script, with inner apostrophes ("don't").
const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}\p{N}]+)*/gu;
// Within a word, runs of digits and runs of everything else are separate tokens.
const DIGITS_OR_NOT = /\p{Nd}+|[^\p{Nd}]+/gu;

/**
 * Dictated or typed text as tokens with their positions. Only the key is normalized; the text
 * itself is never changed here, so a rewrite replaces exact spans of the original.
 */
export function tokenizeText(text: string): Token[] {
  const tokens: Token[] = [];
  for (const word of text.matchAll(WORD)) {
    const wordStart = word.index;
    const parts = [...word[0].matchAll(DIGITS_OR_NOT)];
    parts.forEach((part, index) => {
      const start = wordStart + part.index;
      tokens.push({
        norm: part[0].toLowerCase(),
        start,
        end: start + part[0].length,
        startsWord: index === 0,
        endsWord: index === parts.length - 1,
      });
    });
  }
  return normalizeNumbers(
    tokens,
    (first, second, value) => ({ ...first, norm: value, end: second.end, endsWord: second.endsWord }),
    (first, second) => first.endsWord && second.startsWord && /^[ \t-]$/.test(text.slice(first.end, second.start)),
  );
}

/** The key of a phrase written by a person (the user's list): the same tokens as dictation. */
export function keyOfText(text: string): string {
  return tokenizeText(text)
    .map((token) => token.norm)
    .join(" ");
}
