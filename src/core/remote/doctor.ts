import * as z from "zod";
import { shellLine } from "../foundation/shell-quote.js";
import { HOST_INSTALL_TEXT, MIN_NODE, NODE_DOWNLOAD_URL } from "../foundation/install-commands.js";
import { runCommand } from "../foundation/process.js";
import { sshTarget, type Host } from "./hosts-file.js";
import { sshFailure } from "./ssh-errors.js";

const SSH_TIMEOUT_MS = 30_000;

/** What `offrun hosts doctor` found on a host. */
export interface HostDoctor {
  host: string;
  reachable: boolean;
  /** Why ssh itself failed, when it did. */
  problem?: string;
  tools: { name: string; version?: string; fix?: string }[];
  /** The agent CLIs as `offrun harnesses --json` on the host reports them. */
  clis: { id: string; name: string; version?: string; installed: boolean; installHint?: string }[];
}

const harnessRowSchema = z.array(
  z.looseObject({
    id: z.string(),
    name: z.string(),
    binary: z.string().nullish(),
    version: z.string().nullish(),
    installHint: z.string().nullish(),
  }),
);

const FIXES: Record<string, string> = {
  offrun: `install it on the host: ${HOST_INSTALL_TEXT}`,
  git: "install git on the host (apt install git, or your system's package)",
  node: `install Node.js ${MIN_NODE.major}.${MIN_NODE.minor} or newer on the host (your system's package, or ${NODE_DOWNLOAD_URL})`,
};

/**
 * Asks the host over ssh what Offrun needs there: offrun, git and node on the PATH of its
 * non-interactive shell (what `ssh host cmd` gets), and which agent CLIs its offrun finds. The
 * script is fixed text; the only value put in it is offrun's command, quoted for the remote shell.
 */
export async function doctorHost(host: Host): Promise<HostDoctor> {
  const line = (name: string, command: string) =>
    `v=$(${command} --version 2>/dev/null | head -n 1); printf '%s\\t%s\\n' ${name} "$v"`;
  const probe = [line("offrun", shellLine([host.offrun ?? "offrun"])), line("git", "git"), line("node", "node")].join(
    "\n",
  );
  const ssh = (remote: string) =>
    runCommand(
      { file: "ssh", args: ["-T", "-o", "BatchMode=yes", "-o", "ConnectTimeout=15", ...sshTarget(host), "--", remote] },
      { timeoutMs: SSH_TIMEOUT_MS },
    );
  const first = await ssh(probe);
  if (first.failed && first.exitCode === 255) {
    const failure = sshFailure(host.name, { exitCode: 255, signal: undefined, stderrTail: first.stderr });
    return { host: host.name, reachable: false, problem: failure.message, tools: [], clis: [] };
  }
  const tools = first.stdout
    .split("\n")
    .filter((line) => line.includes("\t"))
    .map((line) => {
      const [name = "", version = ""] = line.split("\t");
      return version.trim() ? { name, version: version.trim() } : { name, fix: FIXES[name] };
    });
  const hasOffrun = tools.some((t) => t.name === "offrun" && t.version);
  if (!hasOffrun) return { host: host.name, reachable: true, tools, clis: [] };
  const listed = await ssh(shellLine([host.offrun ?? "offrun", "harnesses", "--json"]));
  let clis: HostDoctor["clis"] = [];
  try {
    clis = harnessRowSchema.parse(JSON.parse(listed.stdout)).map((h) => ({
      id: h.id,
      name: h.name,
      installed: Boolean(h.binary),
      ...(h.version ? { version: h.version } : {}),
      ...(h.binary ? {} : h.installHint ? { installHint: h.installHint } : {}),
    }));
  } catch {
    tools.push({ name: "offrun harnesses", fix: `it did not answer as expected: ${listed.stderr.trim().slice(-200)}` });
  }
  return { host: host.name, reachable: true, tools, clis };
}
