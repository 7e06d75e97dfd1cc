import path from "node:path";
import * as z from "zod";
import { OffrunError } from "../../core/foundation/errors.js";
import type { HarnessHooks, TranscriptMoment } from "../types.js";

/**
 * Offrun's hook in Codex: the top-level `notify` of `config.toml`, set by editing the text, not by
 * parsing and re-printing it: one line is added and every other byte stays where it was. Codex
 * runs one notify program with the JSON payload as its last argument (docs/harnesses/codex.md,
 * Hooks; recorded from 0.171.0 in test/fixtures/codex/0.171.0/hooks/).
 */

/** The notify payload; Codex names its fields with dashes. */
const payloadSchema = z.object({
  type: z.string(),
  "thread-id": z.string().min(1),
  "turn-id": z.string().optional(),
  cwd: z.string().optional(),
  "last-assistant-message": z.string().nullable().optional(),
});

async function signal(payload: unknown, receivedAt: string): Promise<TranscriptMoment | undefined> {
  const parsed = payloadSchema.safeParse(payload);
  // agent-turn-complete is the only type 0.171.0 sends; another would be news to read first.
  if (!parsed.success || parsed.data.type !== "agent-turn-complete") return undefined;
  const event = parsed.data;
  return {
    kind: "finished",
    sessionId: event["thread-id"],
    // The turn id names this turn end exactly: the transcript watcher's sighting of it dedupes by it.
    ...(event["turn-id"] ? { eventId: event["turn-id"] } : {}),
    ...(event.cwd ? { cwd: event.cwd } : {}),
    text: event["last-assistant-message"] ?? "",
    at: receivedAt,
  };
}

export const codexHooks: HarnessHooks = {
  settingsFile: (home) => path.join(home, "config.toml"),
  add: addCodexNotify,
  isPresent: hasCodexNotify,
  signal,
};

/** What a scan of the top level (the part before the first table) found. */
interface TopLevel {
  /** The existing `notify = ...` statement, if any. */
  notify?: { start: number; end: number; value: string };
  /** Where the last top-level statement ends (after its newline); 0 when there is none. */
  lastStatementEnd: number;
}

/** The file's text with `notify` set to Offrun's hook; the same text when it is set already. */
function addCodexNotify(text: string | undefined, argv: readonly string[], file: string): string {
  const source = text ?? "";
  const eol = source.includes("\r\n") ? "\r\n" : "\n";
  const line = `notify = [${argv.map((word) => JSON.stringify(word)).join(", ")}]`;
  const top = scanTopLevel(source);
  if (top.notify) {
    if (sameArgv(top.notify.value, argv)) return source;
    throw new OffrunError(
      "conflict",
      `${file} already sets notify = ${top.notify.value.trim()}, and Codex runs only one notify program, ` +
        `so Offrun did not change it. To keep both, point notify at a small script of yours that runs that program ` +
        `and then ${argv.join(" ")} with the same JSON argument appended; or remove your notify line and run ` +
        `\`offrun hooks install --harness codex\` again.`,
    );
  }
  const at = top.lastStatementEnd;
  // A last statement without a final newline: start a new line, and keep the file's "no final newline".
  if (at > 0 && source[at - 1] !== "\n") return source.slice(0, at) + eol + line + source.slice(at);
  return source.slice(0, at) + line + eol + source.slice(at);
}

/** Is Offrun's hook the file's `notify`? */
function hasCodexNotify(text: string | undefined, argv: readonly string[]): boolean {
  const notify = scanTopLevel(text ?? "").notify;
  return notify !== undefined && sameArgv(notify.value, argv);
}

/** Compares a TOML array of plain strings with an argv (anything fancier counts as different). */
function sameArgv(value: string, argv: readonly string[]): boolean {
  const words: string[] = [];
  const rest = value.replace(/#[^\n]*$/gm, "").trim();
  if (!rest.startsWith("[") || !rest.endsWith("]")) return false;
  const inner = rest.slice(1, -1);
  const word = /\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)')\s*(,|$)/y;
  while (word.lastIndex < inner.length) {
    const start = word.lastIndex;
    const match = word.exec(inner);
    if (!match || word.lastIndex === start) {
      if (inner.slice(start).trim() !== "") return false;
      break;
    }
    try {
      words.push(match[1] !== undefined ? (JSON.parse(`"${match[1]}"`) as string) : (match[2] ?? ""));
    } catch {
      return false;
    }
  }
  return words.length === argv.length && words.every((w, i) => w === argv[i]);
}

/**
 * Walks the top level of a TOML document: tracks strings (all four kinds), comments and the
 * depth of arrays and inline tables, so that a `[` at the start of a line at depth 0 is known
 * to be a table header, and a `notify =` there a top-level key.
 */
function scanTopLevel(text: string): TopLevel {
  const result: TopLevel = { lastStatementEnd: 0 };
  let depth = 0;
  let inString: '"' | "'" | '"""' | "'''" | undefined;
  let lineStart = 0;
  let lineHasContent = false;
  let notifyStart: number | undefined;
  for (let i = 0; i <= text.length; i++) {
    const ch = text[i];
    const atEnd = i === text.length;
    if (atEnd || ch === "\n") {
      const complete = depth === 0 && (inString === undefined || inString === '"' || inString === "'");
      if (complete) {
        if (inString === '"' || inString === "'") inString = undefined; // an unclosed one-line string ends here
        if (lineHasContent) result.lastStatementEnd = atEnd ? i : i + 1;
        if (notifyStart !== undefined) {
          const valueStart = text.indexOf("=", notifyStart) + 1;
          result.notify = { start: notifyStart, end: atEnd ? i : i + 1, value: text.slice(valueStart, i) };
          notifyStart = undefined;
        }
        lineHasContent = false;
      }
      lineStart = i + 1;
      if (atEnd) break;
      continue;
    }
    if (inString) {
      if (ch === "\\" && (inString === '"' || inString === '"""')) i++;
      else if (text.startsWith(inString, i)) {
        i += inString.length - 1;
        inString = undefined;
      }
      continue;
    }
    if (ch === "#") {
      const newline = text.indexOf("\n", i);
      i = (newline === -1 ? text.length : newline) - 1;
      continue;
    }
    if (ch === " " || ch === "\t" || ch === "\r") continue;
    if (depth === 0 && !lineHasContent && text.slice(lineStart, i).trim() === "") {
      if (ch === "[") break; // the first table header: the top level ends here
      if (/^(?:notify|"notify"|'notify')\s*=/.test(text.slice(i))) notifyStart = i;
    }
    lineHasContent = true;
    if (text.startsWith('"""', i) || text.startsWith("'''", i)) {
      inString = text.slice(i, i + 3) as '"""' | "'''";
      i += 2;
    } else if (ch === '"' || ch === "'") inString = ch;
    else if (ch === "[" || ch === "{") depth++;
    else if (ch === "]" || ch === "}") depth = Math.max(0, depth - 1);
  }
  return result;
}
