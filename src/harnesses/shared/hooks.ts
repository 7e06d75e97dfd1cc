import { OffrunError } from "../../core/foundation/errors.js";
import { shellLine } from "../../core/foundation/shell-quote.js";
import type { TranscriptMoment } from "../types.js";

/**
 * Adds Offrun's hook to a JSON settings file in the shape Claude Code made common and Gemini CLI
 * and Grok Build copied: `{"hooks": {"<Event>": [{"hooks": [{"type": "command", "command", "timeout"}]}]}}`.
 * The file is parsed, the entries added, and the result written back with the indentation, line
 * endings and final newline the file had. (JSON.parse keeps key order, except that keys that look
 * like integers come first: none of these settings have such keys.) Undoing is not done here:
 * uninstall puts the backup back byte for byte.
 */

export interface JsonHookShape {
  /** The events Offrun listens to, by the CLI's own names. */
  events: readonly string[];
  /** The `timeout` value, in the CLI's own unit (seconds for Claude and Grok, milliseconds for Gemini). */
  timeout: number;
}

/** The file's text with Offrun's hooks added; the same text when they are there already. */
export function addJsonHooks(shape: JsonHookShape, text: string | undefined, argv: readonly string[], file: string) {
  // The CLI hands `command` to a shell: each word is quoted.
  const command = shellLine(argv);
  const settings = parseSettings(text, file);
  const hooks = objectField(settings, "hooks", file);
  let changed = false;
  for (const event of shape.events) {
    const matchers = arrayField(hooks, event, file);
    if (matchers.some((matcher) => runsCommand(matcher, command))) continue;
    matchers.push({ hooks: [{ type: "command", command, timeout: shape.timeout }] });
    changed = true;
  }
  if (!changed && text !== undefined) return text;
  return formatLike(settings, text);
}

/** Does the settings text run Offrun's hook on every event it listens to? */
export function hasJsonHooks(shape: JsonHookShape, text: string | undefined, argv: readonly string[]): boolean {
  if (text === undefined) return false;
  try {
    return addJsonHooks(shape, text, argv, "settings.json") === text;
  } catch {
    return false;
  }
}

function parseSettings(text: string | undefined, file: string): Record<string, unknown> {
  if (text === undefined || text.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new OffrunError(
      "invalid_file",
      `${file} is not valid JSON (${(error as Error).message}), so Offrun did not change it. Fix it, then run \`offrun hooks install\` again.`,
      { cause: error },
    );
  }
  if (!isObject(value)) throw notShaped(file, "the whole file", "an object");
  return value;
}

function objectField(parent: Record<string, unknown>, key: string, file: string): Record<string, unknown> {
  const value = (parent[key] ??= {});
  if (!isObject(value)) throw notShaped(file, key, "an object");
  return value;
}

function arrayField(parent: Record<string, unknown>, key: string, file: string): unknown[] {
  const value = (parent[key] ??= []);
  if (!Array.isArray(value)) throw notShaped(file, `hooks.${key}`, "a list");
  return value as unknown[];
}

function runsCommand(matcher: unknown, command: string): boolean {
  if (!isObject(matcher) || !Array.isArray(matcher.hooks)) return false;
  return matcher.hooks.some((hook: unknown) => isObject(hook) && hook.command === command);
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function notShaped(file: string, field: string, expected: string): OffrunError {
  return new OffrunError(
    "invalid_file",
    `In ${file}, ${field} should be ${expected}, so Offrun did not change the file. Fix it, then run \`offrun hooks install\` again.`,
  );
}

/** Serialises `value` with the indentation, line ending and final newline of `original`. */
function formatLike(value: unknown, original: string | undefined): string {
  const source = original ?? "";
  const indent = /\n([ \t]+)\S/.exec(source)?.[1] ?? "  ";
  const eol = source.includes("\r\n") ? "\r\n" : "\n";
  const endsWithNewline = original === undefined || original.trim() === "" || /\n$/.test(source);
  const body = JSON.stringify(value, null, indent).replaceAll("\n", eol);
  return endsWithNewline ? body + eol : body;
}

/** A string field of a payload, when it is a non-empty string. */
export function textField(payload: Record<string, unknown>, key: string): string | undefined {
  const value = payload[key];
  return typeof value === "string" && value !== "" ? value : undefined;
}

/**
 * The part of a transcript moment that every hook payload in Claude's shape gives (Gemini CLI
 * copied its `session_id` and `cwd`): the session, when Offrun received the hook, and the folder
 * when the payload names one.
 */
export function hookMomentBase(
  payload: { session_id: string; cwd?: string | undefined },
  receivedAt: string,
): Pick<TranscriptMoment, "sessionId" | "at" | "cwd"> {
  return { sessionId: payload.session_id, at: receivedAt, ...(payload.cwd ? { cwd: payload.cwd } : {}) };
}
