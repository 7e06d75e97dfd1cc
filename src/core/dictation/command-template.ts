import path from "node:path";
import { OffrunError } from "../foundation/errors.js";

/**
 * A command template from a preference: "whisper-cli -m {model} -f {file} -nt". It becomes a file
 * and an argv array, never a shell string: no pipes, globs or variables. Words are separated by
 * spaces; '…' and "…" quote a word with spaces in it, and a backslash escapes the next character.
 * A word that starts with `~/` starts in the home folder. Placeholders are filled after the split,
 * so a recording path with spaces in it stays one argument.
 */

/** What a template may name; each is replaced wherever it appears inside a word. */
export const PLACEHOLDERS = ["file", "model", "language"] as const;
export type Placeholder = (typeof PLACEHOLDERS)[number];

export function splitTemplate(template: string): string[] {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < template.length; i++) {
    const c = template[i]!;
    if (quote !== undefined) {
      if (c === quote) quote = undefined;
      else if (c === "\\" && quote === '"' && i + 1 < template.length) word += template[++i];
      else word += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
    } else if (c === "\\" && i + 1 < template.length) {
      word += template[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote !== undefined) {
    throw new OffrunError(
      "invalid_input",
      `The command "${template}" has an unclosed ${quote}. Close it or remove it.`,
    );
  }
  if (inWord) words.push(word);
  return words;
}

/** The placeholders a template uses, so a check can ask only for what it needs (a model file). */
export function placeholdersOf(words: readonly string[]): Set<Placeholder> {
  const used = new Set<Placeholder>();
  for (const word of words) {
    for (const name of PLACEHOLDERS) if (word.includes(`{${name}}`)) used.add(name);
  }
  return used;
}

/**
 * A template's words with its placeholders filled. A `{name}` that is not a placeholder is refused
 * rather than passed on, since it is most likely a typo ("{flie}").
 */
export function fillTemplate(words: readonly string[], values: Record<Placeholder, string>, home: string): string[] {
  return words.map((word) => {
    const expanded = word.startsWith("~/") ? path.join(home, word.slice(2)) : word;
    return expanded.replace(/\{([a-z]+)\}/g, (whole, name: string) => {
      if ((PLACEHOLDERS as readonly string[]).includes(name)) return values[name as Placeholder];
      throw new OffrunError(
        "invalid_input",
        `Unknown placeholder ${whole} in a dictation command. Use ${PLACEHOLDERS.map((p) => `{${p}}`).join(", ")}.`,
      );
    });
  });
}
