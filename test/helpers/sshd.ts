import fs from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { execa, type ResultPromise } from "execa";

/**
 * A real OpenSSH server on a loopback port, for the remote-host tests: its own host key, a client
 * key made for the test in its authorized_keys, and the environment the "remote" side runs with
 * (its own HOME and OFFRUN_HOME) set by sshd's SetEnv. The client side gets an ssh config file
 * (`offrun hosts add … --ssh-config`) with a known_hosts that holds the server's key, so ssh's
 * checks stay on: nothing is bypassed.
 */
export interface TestSshd {
  port: number;
  /** An ssh config with `Host <alias>` entries pointing at this server. */
  config: string;
  /** The known_hosts file the config names. */
  knownHosts: string;
  /** ssh's own processes for one host alias, newest last (to kill a connection). */
  close(): Promise<void>;
}

export const SSHD = "/usr/sbin/sshd";

export async function sshdAvailable(): Promise<boolean> {
  return fs.access(SSHD).then(
    () => true,
    () => false,
  );
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** Starts sshd; `remoteEnv` is what every session on it gets (HOME, PATH, OFFRUN_HOME, ...). */
export async function startSshd(
  dir: string,
  remoteEnv: Record<string, string>,
  aliases = ["devbox"],
): Promise<TestSshd> {
  await fs.mkdir(dir, { recursive: true });
  const hostKey = path.join(dir, "host_ed25519");
  const clientKey = path.join(dir, "client_ed25519");
  for (const key of [hostKey, clientKey]) {
    await execa("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", key], { timeout: 30_000 });
  }
  const authorized = path.join(dir, "authorized_keys");
  await fs.copyFile(`${clientKey}.pub`, authorized);
  const port = await freePort();
  // sshd running as root needs its privilege-separation folder (the Debian unit makes it at boot).
  if (process.getuid?.() === 0) await fs.mkdir("/run/sshd", { recursive: true, mode: 0o755 });
  for (const value of Object.values(remoteEnv)) {
    if (/[\s"]/.test(value)) throw new Error(`a remote env value sshd cannot carry: ${value}`);
  }
  const setEnv = Object.entries(remoteEnv)
    .map(([k, v]) => `${k}=${v}`)
    .join(" ");
  const config = path.join(dir, "sshd_config");
  await fs.writeFile(
    config,
    [
      `Port ${port}`,
      `ListenAddress 127.0.0.1`,
      `HostKey ${hostKey}`,
      `PidFile ${path.join(dir, "sshd.pid")}`,
      `AuthorizedKeysFile ${authorized}`,
      `PasswordAuthentication no`,
      `KbdInteractiveAuthentication no`,
      `PubkeyAuthentication yes`,
      `PermitRootLogin prohibit-password`,
      `StrictModes no`,
      `UsePAM no`,
      `SetEnv ${setEnv}`,
      `LogLevel ERROR`,
      "",
    ].join("\n"),
  );
  const server: ResultPromise = execa(SSHD, ["-D", "-e", "-f", config], { reject: false, timeout: 60 * 60_000 });
  const hostPub = (await fs.readFile(`${hostKey}.pub`, "utf8")).trim().split(" ").slice(0, 2).join(" ");
  const knownHosts = path.join(dir, "known_hosts");
  await fs.writeFile(knownHosts, `[127.0.0.1]:${port} ${hostPub}\n`);
  const user = os.userInfo().username;
  const clientConfig = path.join(dir, "ssh_config");
  await fs.writeFile(
    clientConfig,
    aliases
      .map((alias) =>
        [
          `Host ${alias}`,
          `  HostName 127.0.0.1`,
          `  Port ${port}`,
          `  User ${user}`,
          `  IdentityFile ${clientKey}`,
          `  IdentitiesOnly yes`,
          `  UserKnownHostsFile ${knownHosts}`,
          `  GlobalKnownHostsFile /dev/null`,
          `  StrictHostKeyChecking yes`,
          "",
        ].join("\n"),
      )
      .join("\n"),
  );
  await waitForPort(port);
  return {
    port,
    config: clientConfig,
    knownHosts,
    close: async () => {
      server.kill("SIGTERM");
      await server;
    },
  };
}

async function waitForPort(port: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`sshd did not listen on ${port}`);
}

/** A TCP port that accepts and never says a word: a host that hangs, as a sleeping laptop's may. */
export async function silentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const address = server.address();
  return {
    port: typeof address === "object" && address ? address.port : 0,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
