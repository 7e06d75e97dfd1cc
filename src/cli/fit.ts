/**
 * How wide a screen may be, and text made to fit it: the one width rule of every table and
 * screen the CLI prints. A cut cell ends in `…`; `--json` always has the full text.
 */

/** Columns between two cells of a table. */
export const GAP = 2;

/** No column of a table is cut below this (nor below its header): a cell of "Cl…" tells nothing. */
const NARROWEST = 8;

/**
 * The width a screen must fit: COLUMNS when it is set (the user's say, and how a test asks), else
 * the terminal's width. Unlimited when stdout is a file or a pipe: what is saved or piped to grep
 * keeps every character, as `ls` and `git` do, and a script that wants fields reads `--json`.
 */
export function screenWidth(
  env: NodeJS.ProcessEnv = process.env,
  stream: { isTTY?: boolean; columns?: number } = process.stdout,
): number {
  const asked = Number(env.COLUMNS);
  if (Number.isInteger(asked) && asked > 0) return asked;
  return stream.isTTY && stream.columns ? stream.columns : Infinity;
}

/** Characters as the terminal counts them: by code point, so a surrogate pair is never split. */
export function textLength(text: string): number {
  return [...text].length;
}

/** `text` cut to `width` characters, its last one `…` when anything was cut. */
export function cut(text: string, width: number): string {
  if (textLength(text) <= width) return text;
  if (width <= 0) return "";
  return [...text].slice(0, width - 1).join("") + "…";
}

/** `text` padded with spaces to `width` characters. */
export function pad(text: string, width: number): string {
  return text + " ".repeat(Math.max(0, width - textLength(text)));
}

/** Prose wrapped at spaces into lines of at most `width` characters, each after `indent`; a word longer than a line is cut. */
export function wrap(text: string, width: number, indent = ""): string[] {
  const room = width - textLength(indent);
  if (textLength(indent) + textLength(text) <= width) return [indent + text];
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line !== "" && textLength(line) + 1 + textLength(word) > room) {
      lines.push(indent + line);
      line = "";
    }
    line = line === "" ? cut(word, room) : `${line} ${word}`;
  }
  if (line !== "") lines.push(indent + line);
  return lines;
}

/**
 * Column widths that fit `room`: the widest column gives a character at a time until the row fits
 * (free text, a home or a note, is what runs wide; names and states are short and keep their width),
 * none going below its header or NARROWEST. The last column counts only as far as its text runs.
 */
export function fitColumns(natural: number[], headers: string[], room: number): number[] {
  const widths = [...natural];
  const floor = widths.map((w, i) => Math.min(w, Math.max(textLength(headers[i] ?? ""), NARROWEST)));
  let total = widths.reduce((sum, w) => sum + w, 0) + GAP * (widths.length - 1);
  while (total > room) {
    let widest = -1;
    widths.forEach((w, i) => {
      if (w > floor[i]! && (widest < 0 || w > widths[widest]!)) widest = i;
    });
    if (widest < 0) break; // every column at its narrowest: the rows are cut at the edge instead
    widths[widest]!--;
    total--;
  }
  return widths;
}
