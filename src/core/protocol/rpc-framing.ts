/**
 * How JSON-RPC messages are cut on a byte stream. Offrun speaks one JSON message per line
 * everywhere, on the companion's socket and across ssh alike: JSON.stringify never writes a raw
 * newline, so a line is always one message, and a line reader is all either end needs.
 *
 * The previous version framed each message on the socket with a `Content-Length` header and a
 * blank line (vscode-jsonrpc's framing), and a companion still running that version, or a face of
 * it, has to be understood for a while: `ContentLengthReader` reads that framing, `frameMessage` writes it.
 * How an end finds which one the other speaks is in rpc-socket.ts.
 */

export type Framing = "lines" | "content-length";

/** A JSON-RPC message as it travels: requests, notifications and replies alike. */
export interface RpcMessage {
  jsonrpc?: string;
  id?: number | string | null;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { code?: unknown; message?: unknown; data?: unknown };
}

/** What the companion reads from a client: a prompt or a plan, never a file's worth. */
export const MAX_REQUEST_BYTES = 32 * 1024 * 1024;
/** A reply bigger than this is a broken stream, not an answer (a diff is sent as a file's worth). */
export const MAX_REPLY_BYTES = 256 * 1024 * 1024;

/** The stream broke the framing (a line that is not a JSON object, a line too long): the connection ends. */
export class FramingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FramingError";
  }
}

const NEWLINE = 0x0a;

export function frameMessage(message: RpcMessage, framing: Framing): Buffer {
  const body = Buffer.from(JSON.stringify(message), "utf8");
  if (framing === "lines") return Buffer.concat([body, Buffer.from("\n")]);
  return Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, "ascii"), body]);
}

/** One line's text as a message: a JSON object, or a FramingError. Blank lines are none. */
export function parseLine(text: string): RpcMessage | undefined {
  const line = text.trim();
  if (line === "") return undefined;
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    throw new FramingError(`not a JSON-RPC line: ${line.slice(0, 120)}`);
  }
  if (typeof message !== "object" || message === null || Array.isArray(message))
    throw new FramingError(`not a JSON-RPC message: ${line.slice(0, 120)}`);
  return message as RpcMessage;
}

export interface FrameReader {
  /** Hands every whole message to the callback given at construction; throws FramingError. */
  push(chunk: Buffer): void;
}

/**
 * Cuts a byte stream at "\n" (a byte that never occurs inside a character of several bytes, so a
 * chunk may end anywhere). A line is never held past `maxBytes`: it is a FramingError at once.
 */
export class LineReader implements FrameReader {
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  constructor(
    private readonly onMessage: (message: RpcMessage) => void,
    private readonly maxBytes: number,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline < 0 ? chunk.length : newline;
      this.pendingBytes += end - start;
      if (this.pendingBytes > this.maxBytes)
        throw new FramingError(`a line longer than ${this.maxBytes} bytes, more than any message`);
      if (newline < 0) {
        if (end > start) this.pending.push(chunk.subarray(start));
        return;
      }
      const piece = chunk.subarray(start, newline);
      const line = this.pending.length === 0 ? piece : Buffer.concat([...this.pending, piece]);
      this.pending = [];
      this.pendingBytes = 0;
      const message = parseLine(line.toString("utf8"));
      if (message) this.onMessage(message);
      start = newline + 1;
    }
  }
}

const HEADER_END = Buffer.from("\r\n\r\n");

/** The previous version's framing: `Content-Length: N`, a blank line, N bytes of JSON. */
export class ContentLengthReader implements FrameReader {
  private buffered: Buffer = Buffer.alloc(0);

  constructor(
    private readonly onMessage: (message: RpcMessage) => void,
    private readonly maxBytes: number,
  ) {}

  push(chunk: Buffer): void {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    for (;;) {
      const headerEnd = this.buffered.indexOf(HEADER_END);
      if (headerEnd === -1) {
        if (this.buffered.length > 4096) throw new FramingError("a header of more than 4 KB, not a message's");
        return;
      }
      const header = this.buffered.subarray(0, headerEnd).toString("ascii");
      const length = Number(/^content-length:\s*(\d+)\s*$/im.exec(header)?.[1]);
      if (!Number.isSafeInteger(length))
        throw new FramingError(`a message without a valid Content-Length: ${header.slice(0, 200)}`);
      if (length > this.maxBytes) throw new FramingError(`a message of ${length} bytes, more than any message`);
      const start = headerEnd + HEADER_END.length;
      if (this.buffered.length < start + length) return;
      const body = this.buffered.subarray(start, start + length).toString("utf8");
      this.buffered = this.buffered.subarray(start + length);
      const message = parseLine(body);
      if (message) this.onMessage(message);
    }
  }
}

export function frameReader(framing: Framing, onMessage: (message: RpcMessage) => void, maxBytes: number): FrameReader {
  return framing === "lines" ? new LineReader(onMessage, maxBytes) : new ContentLengthReader(onMessage, maxBytes);
}

/**
 * A connection that starts with `Content-Length:` is a face of the previous version: it is
 * answered in its framing. Undefined while the bytes so far could still be that header.
 */
export function sniffFraming(head: Buffer): Framing | undefined {
  const prefix = "content-length:";
  const seen = head.subarray(0, prefix.length).toString("ascii").toLowerCase();
  if (!prefix.startsWith(seen)) return "lines";
  return seen.length === prefix.length ? "content-length" : undefined;
}
