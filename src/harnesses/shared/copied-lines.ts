import fs from "node:fs/promises";

/**
 * A session copied into another login's home carries the lines the first login wrote: its token
 * counts, its rate-limit readings, its limit message. Read as the new login's own, they make it
 * look used or limited (a failover moved a session from a limited login, and the next reading
 * said the new one was limited too). Each copied line gets this field first, which the CLIs ignore
 * (checked on Claude Code 2.1.332 and Codex 0.171.0 resuming such a copy), and quota readers skip it.
 */
export const COPIED_MARK = '"offrunCopied":true';

/** True when a session line came from another login's copy of the session. */
export function isCopiedLine(line: string | Buffer): boolean {
  return line.includes(COPIED_MARK);
}

/** Copies a JSON-lines session file, marking every object line as copied (already-marked lines stay as they are). */
export async function copyMarkingLines(source: string, target: string): Promise<void> {
  const text = await fs.readFile(source, "utf8");
  const marked = text
    .split("\n")
    .map((line) =>
      line.startsWith("{") && !isCopiedLine(line) ? `{${COPIED_MARK}${line === "{}" ? "" : ","}${line.slice(1)}` : line,
    )
    .join("\n");
  await fs.writeFile(target, marked, { mode: 0o600 });
}
