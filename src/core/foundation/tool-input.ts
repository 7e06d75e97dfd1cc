/**
 * One line for what a tool call acts on, the same in every face (the terminal's conversation, a
 * notification, Raycast's detail, a review's log): the command, the file or the URL when the
 * input names one; a Codex `file_change`'s files with what happens to each; else the input's
 * plain fields as `name: value`, and JSON only for what has none. Every CLI's tool calls then read
 * as a line: a Codex file change printed `{"changes":[{"path":…` where Claude's edit printed its path.
 */

/** The fields that say what a call acts on, most telling first. */
const NAMING_FIELDS = ["command", "cmd", "file_path", "notebook_path", "path", "pattern", "url", "query"] as const;

/** The named command, file or URL as it is (a multi-line command stays whole); anything else cut to `max`. */
export function describeToolInput(input: unknown, max = 120): string {
  if (typeof input === "string") return input;
  const named = namedTarget(input);
  return named ?? cut(describe(input), max);
}

function namedTarget(input: unknown): string | undefined {
  if (!input || typeof input !== "object" || Array.isArray(input)) return undefined;
  const record = input as Record<string, unknown>;
  for (const field of NAMING_FIELDS) {
    const value = record[field];
    if (typeof value === "string" && value !== "") return value;
    if (Array.isArray(value) && value.length > 0 && value.every((part) => typeof part === "string")) {
      return value.join(" ");
    }
  }
  return undefined;
}

function describe(input: unknown): string {
  if (!input || typeof input !== "object" || Array.isArray(input)) return JSON.stringify(input) ?? "";
  const record = input as Record<string, unknown>;
  const changes = fileChanges(record.changes);
  if (changes) return changes;
  const plain = Object.entries(record).filter(
    (entry): entry is [string, string | number | boolean] =>
      typeof entry[1] === "string" || typeof entry[1] === "number" || typeof entry[1] === "boolean",
  );
  if (plain.length > 0) return plain.map(([key, value]) => `${key}: ${String(value)}`).join(", ");
  return JSON.stringify(input) ?? "";
}

/** Codex's `file_change` (`[{ path, kind }]`): "update src/a.ts, add src/b.ts". */
function fileChanges(changes: unknown): string | undefined {
  if (!Array.isArray(changes) || changes.length === 0) return undefined;
  const parts = changes.map((change: unknown) => {
    if (!change || typeof change !== "object") return undefined;
    const { path, kind } = change as { path?: unknown; kind?: unknown };
    if (typeof path !== "string") return undefined;
    return typeof kind === "string" ? `${kind} ${path}` : path;
  });
  return parts.every((part) => part !== undefined) ? parts.join(", ") : undefined;
}

/** One line, at most `max` characters, with "…" where it was cut. */
function cut(text: string, max: number): string {
  const oneLine = text.replace(/\s+/g, " ").trim();
  return oneLine.length > max ? `${oneLine.slice(0, max - 1)}…` : oneLine;
}
