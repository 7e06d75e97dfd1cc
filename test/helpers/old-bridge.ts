// `offrun companion stdio` of the previous version: main's src/core/remote/line-transport.ts and
// src/core/remote/bridge.ts at 2e4995f, copied below, changed only where marked (the socket is
// passed in; its opener was the old client's). It stands for a host running that version. Test-only.

import net from "node:net";
import { PassThrough, type Readable, type Writable } from "node:stream";
import { LineSplitter } from "../../src/core/foundation/lines.js";
import rpc from "vscode-jsonrpc/node.js";

/**
 * JSON-RPC over SSH, one message per line. The Unix socket frames messages with Content-Length
 * headers, as vscode-jsonrpc does by default; across ssh a line per message is simpler to read
 * with the process runner (which hands over whole lines) and to debug with `ssh host offrun
 * companion stdio`. JSON.stringify never writes a raw newline, so a line is always one message.
 */

/** Reads messages from a stream of lines (object mode, one line per chunk, as PipedProcess.stdout gives). */
export class LineMessageReader extends rpc.AbstractMessageReader implements rpc.MessageReader {
  private callback: rpc.DataCallback | undefined;

  constructor(private readonly lines: Readable) {
    super();
    lines.on("end", () => this.fireClose());
    lines.on("close", () => this.fireClose());
    lines.on("error", (error: Error) => this.fireError(error));
  }

  listen(callback: rpc.DataCallback): rpc.Disposable {
    this.callback = callback;
    const onLine = (chunk: unknown) => {
      const line = String(chunk).trim();
      if (line === "") return;
      let message: unknown;
      try {
        message = JSON.parse(line);
      } catch (error) {
        this.fireError(new Error(`not a JSON-RPC line: ${line.slice(0, 120)}`, { cause: error }));
        return;
      }
      if (typeof message === "object" && message !== null && !Array.isArray(message))
        this.callback?.(message as rpc.Message);
      else this.fireError(new Error(`not a JSON-RPC message: ${line.slice(0, 120)}`));
    };
    this.lines.on("data", onLine);
    return rpc.Disposable.create(() => {
      this.lines.off("data", onLine);
      this.callback = undefined;
    });
  }
}

/** Writes each message as one line. */
export class LineMessageWriter extends rpc.AbstractMessageWriter implements rpc.MessageWriter {
  private errors = 0;

  constructor(private readonly stream: Writable) {
    super();
    stream.on("error", (error: Error) => this.fireError(error));
    stream.on("close", () => this.fireClose());
  }

  async write(message: rpc.Message): Promise<void> {
    const line = `${JSON.stringify(message)}\n`;
    await new Promise<void>((resolve, reject) => {
      this.stream.write(line, (error) => {
        if (!error) return resolve();
        this.errors += 1;
        this.fireError(error, message, this.errors);
        reject(error);
      });
    });
  }

  end(): void {
    this.stream.end();
  }
}

/**
 * `offrun companion stdio`, the far end of `ssh host offrun companion stdio`: joins stdin and
 * stdout (a line per message) to this machine's companion socket (Content-Length frames). It
 * holds no state and owns nothing: when ssh drops, only this process ends, and the companion goes
 * on with its agents. Resolves when either side closes.
 */
export async function oldBridgeStdio(
  input: Readable,
  output: Writable,
  log: (line: string) => void,
  socketPath: string, // changed: was the default socket
): Promise<void> {
  const socket = net.connect(socketPath); // changed: was the old client's openSocket()
  await new Promise((resolve) => socket.once("connect", resolve));
  const lines = new PassThrough({ objectMode: true });
  const splitter = new LineSplitter(
    (line) => lines.write(line),
    (_head, size) => log(`offrun companion stdio: dropped a line of ${size} characters`),
  );
  input.setEncoding("utf8");
  input.on("data", (chunk: string) => splitter.push(chunk));
  input.on("end", () => {
    splitter.end();
    lines.end();
  });
  const toCompanion = new rpc.SocketMessageWriter(socket);
  const toPeer = new LineMessageWriter(output);
  new LineMessageReader(lines).listen((message) => void toCompanion.write(message).catch(() => socket.destroy()));
  new rpc.SocketMessageReader(socket).listen((message) => void toPeer.write(message).catch(() => socket.destroy()));
  await new Promise<void>((resolve) => {
    socket.once("close", () => resolve());
    lines.once("end", () => resolve());
    output.once("error", () => resolve());
  });
  socket.destroy();
}
