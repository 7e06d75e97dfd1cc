/**
 * Text from an agent, a CLI or a host is shown, never interpreted. A terminal obeys control
 * characters: `rm -rf ~ \r\x1b[2Kls` prints as `ls` (CR goes back to the start of the line, ESC[2K
 * erases it). Bidirectional overrides reorder what follows in a terminal, a notification and a
 * Raycast view alike ("Trojan Source", CVE-2021-42574). So every face writes such text through
 * `visible`, which spells each of them out as a JavaScript escape (`\r`, `\x1b`, `\u202e`).
 *
 * Left as they are: printable text, backslashes (a `\x1b` that was typed shows as typed, which
 * hides nothing), and in "lines" text the line breaks (`\n`, and `\r\n`, which ends a line of a
 * file written on Windows and overwrites nothing) and tabs (they move the cursor, never erase).
 */

/** "lines": multi-line text (a reply, a diff) keeps its line breaks and tabs; "line": one line (a table cell, a name). */
export type VisibleShape = "lines" | "line";

// C0 (but tab and newline, handled per shape), DEL, C1, the bidi embeddings, overrides and
// isolates, the implicit direction marks, and the line and paragraph separators.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const HIDING = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const HIDING_IN_LINES = new RegExp(`\\r\\n|${HIDING.source}`, "g");
const HIDING_IN_LINE = new RegExp(`[\\t\\n]|${HIDING.source}`, "g");
/** The quick test, so text with nothing to escape (nearly all of it) is returned as it is. */
const ANY_IN_LINE = new RegExp(`[\\t\\n]|${HIDING.source}`);

const NAMED: Record<string, string> = { "\t": "\\t", "\n": "\\n", "\r": "\\r" };

function spell(char: string): string {
  const named = NAMED[char];
  if (named) return named;
  const code = char.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

/** `text` with every control character that could hide or rewrite what is shown spelled out. */
export function visible(text: string, shape: VisibleShape = "lines"): string {
  if (shape === "line") return ANY_IN_LINE.test(text) ? text.replace(HIDING_IN_LINE, spell) : text;
  if (!HIDING.test(text)) return text;
  return text.replace(HIDING_IN_LINES, (match) => (match === "\r\n" ? match : spell(match)));
}

// JSON.stringify escapes C0 controls (and so ESC and CR) but writes DEL, C1 and the bidi controls
// as they are; inside a JSON string the \u form means the same character, so scripts read the same.
const RAW_IN_JSON = /[\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** `JSON.stringify(data, null, indent)`, with nothing left in it that a terminal would obey. */
export function visibleJson(data: unknown, indent?: number): string {
  const json = JSON.stringify(data, null, indent) ?? "null";
  return json.replace(RAW_IN_JSON, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
