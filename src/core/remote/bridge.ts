import { PassThrough, type Readable, type Writable } from "node:stream";
import rpc from "vscode-jsonrpc/node.js";
import { openSocket } from "../protocol/client.js";
import { LineSplitter } from "../foundation/lines.js";
import { LineMessageReader, LineMessageWriter } from "./line-transport.js";

/**
 * `offrun companion stdio`, the far end of `ssh host offrun companion stdio`: joins stdin and
 * stdout (a line per message) to this machine's companion socket (Content-Length frames). It
 * holds no state and owns nothing: when ssh drops, only this process ends, and the companion goes
 * on with its agents. Resolves when either side closes.
 */
export async function bridgeStdio(input: Readable, output: Writable, log: (line: string) => void): Promise<void> {
  const socket = await openSocket();
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
