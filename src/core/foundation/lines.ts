import { createReadStream } from "node:fs";

/**
 * Line framing for the CLIs' JSON-lines streams, shared by every runner: split on "\n" only, and
 * never hold an endless line whole.
 */

/** A stdout line longer than this is cut: a CLI that dumps a huge blob on one line must not exhaust memory. */
export const MAX_LINE_CHARS = 10 * 1024 * 1024;
/** How much of a cut line is kept for the log. */
export const OVERSIZED_HEAD_CHARS = 64 * 1024;

/**
 * Splits text on "\n" only (not readline: U+2028 inside JSON is not a line end). A line that grows
 * past MAX_LINE_CHARS is never held whole: its head is kept, the rest is counted and dropped up to
 * the next newline, and `onOversized` gets the head and the full length.
 */
export class LineSplitter {
  private pending = "";
  private cut: { head: string; size: number } | undefined;

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly onOversized: (head: string, size: number) => void,
  ) {}

  push(chunk: string): void {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf("\n", start);
      const piece = newline < 0 ? chunk.slice(start) : chunk.slice(start, newline);
      if (this.cut) this.cut.size += piece.length;
      else {
        this.pending += piece;
        if (this.pending.length > MAX_LINE_CHARS) {
          this.cut = { head: this.pending.slice(0, OVERSIZED_HEAD_CHARS), size: this.pending.length };
          this.pending = "";
        }
      }
      if (newline < 0) return;
      this.endLine();
      start = newline + 1;
    }
  }

  /** The last line, when the stream ended without a newline. */
  end(): void {
    if (this.cut || this.pending !== "") this.endLine();
  }

  private endLine(): void {
    const cut = this.cut;
    const line = this.pending;
    this.cut = undefined;
    this.pending = "";
    if (cut) this.onOversized(cut.head, cut.size);
    else this.onLine(line);
  }
}

/**
 * The lines of a file's first `end` bytes, read as a stream (a copy may hold hundreds of MB: never
 * whole) and split as LineSplitter does; a line past MAX_LINE_CHARS is counted in `oversized`.
 */
export async function* fileLines(
  file: string,
  end: number,
  oversized: { count: number } = { count: 0 },
): AsyncGenerator<string> {
  if (end <= 0) return;
  let ready: string[] = [];
  const splitter = new LineSplitter(
    (line) => ready.push(line),
    () => (oversized.count += 1),
  );
  // utf8 decoding keeps a character whose bytes straddle two chunks whole.
  for await (const chunk of createReadStream(file, { encoding: "utf8", end: end - 1 })) {
    splitter.push(chunk as string);
    yield* ready;
    ready = [];
  }
  splitter.end();
  yield* ready;
}
