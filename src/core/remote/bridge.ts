import type { Readable, Writable } from "node:stream";
import { describeError } from "../foundation/errors.js";
import { userPaths } from "../foundation/paths.js";
import {
  frameMessage,
  frameReader,
  FramingError,
  LineReader,
  MAX_REPLY_BYTES,
  MAX_REQUEST_BYTES,
} from "../protocol/rpc-framing.js";
import { connectCompanion } from "../protocol/rpc-socket.js";

/**
 * `offrun companion stdio`, the far end of `ssh host offrun companion stdio`: joins stdin and
 * stdout (a JSON message per line, as every version has spoken across ssh) to this machine's
 * companion socket, in the framing that companion speaks (lines, or Content-Length when it is of
 * the previous version and still running). It holds no state and owns nothing: when ssh drops,
 * only this process ends, and the companion goes on with its agents. Resolves when either side
 * closes, or sends something that is not a message.
 */
export async function bridgeStdio(
  input: Readable,
  output: Writable,
  log: (line: string) => void,
  socketPath = userPaths().socket,
): Promise<void> {
  const { socket, framing, head } = await connectCompanion(socketPath);
  let stop: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const broken = (from: string) => (error: unknown) => {
    if (!(error instanceof FramingError)) throw error;
    log(`offrun companion stdio: ${from} sent ${describeError(error)}; ending the connection`);
    stop();
  };
  const fromPeer = new LineReader((message) => {
    if (socket.writable) socket.write(frameMessage(message, framing));
  }, MAX_REQUEST_BYTES);
  const fromCompanion = frameReader(
    framing,
    (message) => output.write(frameMessage(message, "lines")),
    MAX_REPLY_BYTES,
  );
  const pump =
    (reader: { push(chunk: Buffer): void }, onBroken: (error: unknown) => void) => (chunk: Buffer | string) => {
      try {
        reader.push(typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk);
      } catch (error) {
        onBroken(error);
      }
    };
  input.on("data", pump(fromPeer, broken("ssh")));
  input.once("end", stop);
  output.once("error", stop);
  socket.on("data", pump(fromCompanion, broken("the companion")));
  socket.once("close", stop);
  socket.once("error", stop);
  if (head.length > 0) pump(fromCompanion, broken("the companion"))(head);
  socket.resume();
  await stopped;
  socket.destroy();
}
