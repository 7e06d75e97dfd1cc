import { OffrunError } from "../foundation/errors.js";
import type { StreamResult } from "../foundation/process.js";
import { HOST_INSTALL_TEXT } from "../foundation/install-commands.js";

/**
 * Why an ssh connection to a host ended, said so the user knows what to do. ssh exits 255 for its
 * own failures and says which on stderr (OpenSSH 9.2's wording); any other code is the remote
 * command's own exit. Nothing here ever weakens ssh's checks: a host key that does not match is
 * the user's to look into.
 */
export function sshFailure(host: string, ended: StreamResult): OffrunError {
  const stderr = ended.stderrTail;
  const said = lastLines(stderr);
  if (ended.spawnError) {
    return new OffrunError(
      "not_installed",
      `ssh could not be started (${ended.spawnError}). Install OpenSSH's client.`,
    );
  }
  if (
    /REMOTE HOST IDENTIFICATION HAS CHANGED|Host key verification failed|host key .* (changed|differs)/i.test(stderr)
  ) {
    return new OffrunError(
      "conflict",
      `ssh does not trust ${host}'s host key (it changed, or is not in known_hosts). Offrun never bypasses this: check the key, fix ~/.ssh/known_hosts yourself, then \`ssh ${host}\` once in a terminal. (${said})`,
    );
  }
  if (/Could not resolve hostname|Name or service not known/i.test(stderr)) {
    return new OffrunError(
      "not_found",
      `ssh cannot find ${host}'s address. Check the destination (offrun hosts) or your ~/.ssh/config. (${said})`,
    );
  }
  if (/Connection refused/i.test(stderr)) {
    return new OffrunError(
      "companion_unavailable",
      `${host} refused the ssh connection: is sshd running there, on that port? (${said})`,
    );
  }
  if (/timed out|Connection closed by .* port|Network is unreachable|No route to host/i.test(stderr)) {
    return new OffrunError(
      "timed_out",
      `${host} did not answer over ssh. It may be asleep or off the network. (${said})`,
    );
  }
  if (/Permission denied|Too many authentication failures/i.test(stderr)) {
    return new OffrunError(
      "not_logged_in",
      `ssh could not sign in to ${host} without asking: add your key to ssh-agent (or ~/.ssh/config) so \`ssh ${host} true\` works without a prompt. (${said})`,
    );
  }
  if (
    ended.exitCode === 127 ||
    /offrun: (command )?not found|command not found: offrun|No such file or directory/i.test(stderr)
  ) {
    return new OffrunError(
      "not_installed",
      `offrun is not installed on ${host} (or not on the PATH of its non-interactive shell). Install it there (${HOST_INSTALL_TEXT}), or give its path: offrun hosts add ${host} <destination> --offrun /path/to/offrun. See: offrun hosts doctor ${host}`,
    );
  }
  if (/unknown command|too many arguments/i.test(stderr)) {
    return new OffrunError(
      "conflict",
      `offrun on ${host} is too old to serve other machines: update offrun on ${host}.`,
    );
  }
  if (ended.killedBecause === "idle") {
    return new OffrunError(
      "timed_out",
      `${host} stopped answering over ssh (no reply to the heartbeat); reconnecting.`,
    );
  }
  const how = ended.signal ? `signal ${ended.signal}` : `exit ${ended.exitCode ?? "?"}`;
  return new OffrunError(
    "companion_unavailable",
    `The ssh connection to ${host} ended (${how}${said ? `: ${said}` : ""}).`,
  );
}

function lastLines(text: string): string {
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("Warning: Permanently added"))
    .slice(-2)
    .join(" ");
}
