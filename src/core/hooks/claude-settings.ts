import { OffrunError } from "../errors.js";

/**
 * Adds Offrun's hook to a Claude Code `settings.json` without disturbing anything else: the
 * file is parsed, the entries added, and the result written back with the indentation, line
 * endings and final newline the file had. (JSON.parse keeps key order, except that keys that
 * look like integers come first: Claude's settings have none.) Undoing is not done here:
 * uninstall puts the backup back byte for byte.
 */

/** The Claude Code events Offrun listens to. Source of truth: Claude Code's hooks documentation. */
export const CLAUDE_HOOK_EVENTS = ["Notification", "Stop"] as const;

// Seconds Claude waits for the hook; it returns at once, this only bounds a stuck disk.
const HOOK_TIMEOUT_SECONDS = 10;

/** The shell command Claude runs: Claude hands `command` to a shell, so each word is quoted. */
export function claudeHookCommand(hookArgv: readonly string[]): string {
  return [...hookArgv, "hook", "claude"].map(shellQuote).join(" ");
}

function shellQuote(word: string): string {
  return /^[A-Za-z0-9_/.:=@%+,-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The file's text with Offrun's hooks added; the same text when they are there already. */
export function addClaudeHooks(text: string | undefined, command: string, file: string): string {
  const settings = parseSettings(text, file);
  const hooks = objectField(settings, "hooks", file);
  let changed = false;
  for (const event of CLAUDE_HOOK_EVENTS) {
    const matchers = arrayField(hooks, event, file);
    if (matchers.some((matcher) => runsCommand(matcher, command))) continue;
    matchers.push({ hooks: [{ type: "command", command, timeout: HOOK_TIMEOUT_SECONDS }] });
    changed = true;
  }
  if (!changed && text !== undefined) return text;
  return formatLike(settings, text);
}

/** Does the settings text run Offrun's hook on every event it listens to? */
export function hasClaudeHooks(text: string | undefined, command: string): boolean {
  if (text === undefined) return false;
  try {
    return addClaudeHooks(text, command, "settings.json") === text;
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

function isObject(value: unknown): value is Record<string, unknown> {
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
