import path from "node:path";
import type { ReviewFinding } from "../foundation/events.js";
import type { ReviewOutput } from "./output.js";

/** Per file of a diff: the new-side lines it touches, or "any" when lines do not apply (binary, deleted). */
export type TouchedLines = Map<string, Set<number> | "any">;

/**
 * The lines a unified diff (`git diff`, a/ b/ prefixes) touches, by new path. Added lines count,
 * and so does the place where lines were removed (the line before and after the gap), so a
 * finding about a deletion is on the diff. Files whose patch has no hunks (binary) count whole.
 */
export function touchedLines(patch: string, files: readonly string[]): TouchedLines {
  const touched: TouchedLines = new Map(files.map((file) => [file, "any" as const]));
  let current: Set<number> | undefined;
  let line = 0;
  for (const text of patch.split("\n")) {
    if (text.startsWith("diff --git ")) {
      current = undefined;
      continue;
    }
    if (text.startsWith("+++ ")) {
      const target = text.slice(4);
      if (target === "/dev/null") continue; // a deleted file stays "any"
      const file = stripPrefix(unquote(target));
      current = new Set<number>();
      touched.set(file, current);
      continue;
    }
    const hunk = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(text);
    if (hunk) {
      line = Number(hunk[1]);
      continue;
    }
    if (!current || text.startsWith("--- ")) continue;
    if (text.startsWith("+")) current.add(line++);
    else if (text.startsWith("-")) {
      current.add(line);
      if (line > 1) current.add(line - 1);
    } else if (text.startsWith(" ")) line++;
  }
  return touched;
}

/** git quotes paths with unusual characters in C style ("a/na\303\257ve.txt"). */
function unquote(value: string): string {
  if (!value.startsWith('"') || !value.endsWith('"')) return value;
  const bytes: number[] = [];
  const body = value.slice(1, -1);
  const escapes: Record<string, number> = { n: 10, t: 9, '"': 34, "\\": 92, a: 7, b: 8, f: 12, r: 13, v: 11 };
  for (let i = 0; i < body.length; i++) {
    const char = body[i]!;
    if (char !== "\\") {
      bytes.push(...Buffer.from(char, "utf8"));
      continue;
    }
    const octal = /^[0-7]{3}/.exec(body.slice(i + 1));
    if (octal) {
      bytes.push(parseInt(octal[0], 8));
      i += 3;
    } else {
      bytes.push(escapes[body[i + 1] ?? ""] ?? 92);
      i += 1;
    }
  }
  return Buffer.from(bytes).toString("utf8");
}

function stripPrefix(file: string): string {
  return file.startsWith("b/") ? file.slice(2) : file;
}

/**
 * The reviewer's findings with Offrun's check: `onDiff` is false for a file the diff does not
 * change or a line it does not touch. Paths are made relative to the reviewed checkout.
 */
export function checkFindings(
  findings: ReviewOutput["findings"],
  touched: TouchedLines,
  checkouts: readonly string[],
): ReviewFinding[] {
  return findings.map((finding) => {
    const file = relativeTo(finding.file, checkouts);
    const lines = touched.get(file);
    const line = finding.line ?? undefined;
    const onDiff = lines !== undefined && (lines === "any" || line === undefined || lines.has(line));
    return {
      file,
      ...(line === undefined ? {} : { line }),
      severity: finding.severity,
      message: finding.message,
      ...(finding.suggestion ? { suggestion: finding.suggestion } : {}),
      onDiff,
    };
  });
}

/** A reviewer may name a file absolutely (inside its scratch checkout) or with "./"; the diff names it from the root. */
function relativeTo(file: string, checkouts: readonly string[]): string {
  if (path.isAbsolute(file)) {
    for (const dir of checkouts) {
      const relative = path.relative(dir, file);
      if (!relative.startsWith("..") && !path.isAbsolute(relative)) return relative.split(path.sep).join("/");
    }
    return file;
  }
  return path.posix.normalize(file.replace(/\\/g, "/")).replace(/^\.\//, "");
}
