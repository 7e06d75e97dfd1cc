import path from "node:path";
import { CharClass, charClass, DOT_WORD, normalizeWords, splitIdentifier } from "./words.js";

/**
 * What one scan of a project's files finds: how often each code name occurs, and each file name.
 * Counts decide between two spellings of the same words (retryBackoffHelper, retry_backoff_helper).
 */
export interface CodeNames {
  identifiers: Map<string, number>;
  fileNames: Map<string, number>;
}

export const emptyCodeNames = (): CodeNames => ({ identifiers: new Map(), fileNames: new Map() });

/** Longer names are hashes, base64 and minified noise, not something anyone dictates. */
export const MAX_NAME_LENGTH = 80;
/** A phrase longer than this many words is not dictated either. */
export const MAX_PHRASE_WORDS = 12;

/**
 * Adds every multi-part name in `text` to `counts`: C-family identifiers, optionally joined by
 * single hyphens into kebab-case (CSS classes, CLI flags, package names; `a-1` is subtraction, so
 * each hyphenated part must start with a letter). One-part names (`const`, `x`) are never
 * rewritten and are skipped without being copied out of the text: a hand-written scan, because
 * a regex match object per word made the garbage collector the slowest part of a cold build.
 */
export function countNames(text: string, counts: Map<string, number>): void {
  const length = text.length;
  let before = CharClass.Other; // the class of text[i - 1]
  let i = 0;
  while (i < length) {
    const kind = charClass(text.charCodeAt(i));
    // A name starts with a letter, _ or $ that does not continue a name or a number ("0xFFab").
    if (kind === CharClass.Other || kind === CharClass.Digit || before !== CharClass.Other) {
      before = kind;
      i += 1;
      continue;
    }
    const start = i;
    let parts = false;
    let previous = CharClass.Other;
    let twoBack = CharClass.Other;
    for (;;) {
      const code = text.charCodeAt(i);
      const next = charClass(code);
      if (next !== CharClass.Other) {
        // A new part: lower->Upper (camelCase), letter->digit, a letter after an inner _ or $, or
        // an acronym ending where a capitalised word begins ("XMLHttp").
        const isLetter = next === CharClass.Lower || next === CharClass.Upper;
        if (
          (next === CharClass.Upper && previous === CharClass.Lower) ||
          (next === CharClass.Digit && (previous === CharClass.Lower || previous === CharClass.Upper)) ||
          (isLetter && previous === CharClass.Joiner && i - 1 > start) ||
          (next === CharClass.Lower && previous === CharClass.Upper && twoBack === CharClass.Upper)
        ) {
          parts = true;
        }
      } else if (code === 45 && isLetterCode(text.charCodeAt(i + 1))) {
        parts = true; // kebab-case: a hyphen followed by a letter
      } else break;
      twoBack = previous;
      previous = next;
      i += 1;
    }
    before = previous;
    if (parts && i - start <= MAX_NAME_LENGTH) {
      const name = text.slice(start, i);
      counts.set(name, (counts.get(name) ?? 0) + 1);
    }
  }
}

function isLetterCode(code: number): boolean {
  const kind = charClass(code);
  return kind === CharClass.Lower || kind === CharClass.Upper;
}

/** Adds the base name of a project file ("src/upload.test.js" -> "upload.test.js"). */
export function countFileName(relativePath: string, counts: Map<string, number>): void {
  const name = path.posix.basename(relativePath);
  if (name === "" || name.length > MAX_NAME_LENGTH) return;
  counts.set(name, (counts.get(name) ?? 0) + 1);
}

/** The spoken words of a code name: its parts, lowercase, number words as digits. */
export function identifierWords(name: string): string[] | undefined {
  const words = splitIdentifier(name);
  if (words.length < 2 || words.length > MAX_PHRASE_WORDS) return undefined;
  return normalizeWords(words);
}

/**
 * The spoken words of a file name: each dot-separated part split like a code name, with "dot"
 * between the parts: "upload.test.js" -> upload dot test dot js, ".env" -> dot env.
 */
export function fileNameWords(name: string): string[] | undefined {
  const words: string[] = [];
  name.split(".").forEach((part, index) => {
    if (index > 0) words.push(DOT_WORD);
    words.push(...splitIdentifier(part));
  });
  if (words.length < 2 || words.length > MAX_PHRASE_WORDS) return undefined;
  return normalizeWords(words);
}

/** The key of a code name ("retry backoff helper"), for tests and tools. */
export const identifierKey = (name: string): string | undefined => identifierWords(name)?.join(" ");
export const fileNameKey = (name: string): string | undefined => fileNameWords(name)?.join(" ");
