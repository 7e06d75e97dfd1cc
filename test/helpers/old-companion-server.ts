import net from "node:net";
import rpc from "vscode-jsonrpc/node.js";

/**
 * A companion socket of the previous version: each connection is a vscode-jsonrpc connection on
 * the socket (Content-Length framing), with the same wiring as main's src/core/companion/server.ts
 * at 2e4995f: a reader error (something unreadable) drops the connection, and so does a close.
 * `answers` are its methods; a method it lacks is vscode-jsonrpc's MethodNotFound, as it was.
 * Test-only: it stands for a companion still running while its faces were updated.
 */
export async function startOldCompanionServer(
  socketPath: string,
  answers: Record<string, (params: unknown) => unknown>,
): Promise<{ close(): Promise<void>; connections: () => number }> {
  let open = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    open += 1;
    const connection = rpc.createMessageConnection(
      new rpc.SocketMessageReader(socket),
      new rpc.SocketMessageWriter(socket),
    );
    for (const [method, answer] of Object.entries(answers)) connection.onRequest(method, (p: unknown) => answer(p));
    const drop = () => {
      if (sockets.delete(socket)) open -= 1;
      connection.dispose();
      socket.destroy();
    };
    connection.onError(drop);
    connection.onClose(drop);
    socket.on("error", drop);
    connection.listen();
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return {
    connections: () => open,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
