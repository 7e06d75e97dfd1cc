import fs from "node:fs/promises";
import { listAgentsAsSeen } from "../core/agents/orphans.js";
import { listLogins } from "../core/logins/store.js";
import { locateBinaryAndVersion } from "../core/foundation/binaries.js";
import { cachedLoginQuota, headroom } from "../core/quota/pipeline.js";
import { CompanionClient } from "../core/protocol/client.js";
import { knownProjects } from "../core/foundation/project.js";
import { listHarnesses } from "../harnesses/registry.js";
import { AGENT_HEADER, agentRows, notInstalledLines, table } from "./format.js";
import { cut, screenWidth } from "./fit.js";
import { output, type GlobalOptions } from "./output.js";
import type { AgentRecord } from "../core/foundation/model.js";
import { askHosts } from "../core/remote/ask-hosts.js";
import { limitedUntilText } from "../core/foundation/time-words.js";
import { windowText } from "../core/quota/quota-window.js";

/** `offrun` with no arguments: what is installed, which logins exist, every agent on this machine and on the hosts. */
export async function dashboard(options: GlobalOptions): Promise<void> {
  const clis = await Promise.all(
    (await listHarnesses({ tolerant: true })).map(async (harness) => {
      const { binary, version } = await locateBinaryAndVersion(harness);
      const listed = await listLogins(harness);
      const logins = await Promise.all(
        listed.map(async (login) => {
          const quota = await cachedLoginQuota(login);
          const exists = await fs.stat(login.home).then(
            () => true,
            () => false,
          );
          return {
            label: login.label,
            isDefault: login.isDefault,
            home: login.home,
            exists,
            headroom: headroom(quota) ?? null,
            limitedUntil: quota.limitedUntil ?? null,
            /** The window that decides, for its words: the share used, as every face writes it. */
            blocking: quota.blocking ?? null,
          };
        }),
      );
      return { id: harness.id, name: harness.displayName, binary, version, installHint: harness.installHint, logins };
    }),
  );
  const companion = await CompanionClient.connect()
    .then(async (client) => {
      const info = await client.ping();
      client.close();
      return info;
    })
    .catch(() => undefined);
  // Without a companion, no turn goes on: agents it left "working" are shown interrupted.
  const [projects, hosts] = await Promise.all([
    Promise.all(
      (await knownProjects()).map(async (root) => ({
        root,
        ...(await listAgentsAsSeen(root, companion !== undefined)),
      })),
    ),
    hostsPart(companion !== undefined),
  ]);

  output(options, { clis, projects, companion: companion ?? null, hosts }, () => {
    const width = screenWidth();
    const lines = ["Agent CLIs"];
    const now = Date.now();
    const installed = clis.filter((cli) => cli.binary);
    // Padded to the longest installed name: "Antigravity CLI" is longer than the 12 it once was.
    const nameWidth = Math.max(0, ...installed.map((cli) => cli.name.length));
    for (const cli of installed) {
      lines.push(`  ✓ ${cli.name.padEnd(nameWidth)}  ${cli.version ?? "(version unknown)"}  ${cli.binary}`);
      for (const login of cli.logins) {
        const room = login.limitedUntil
          ? limitedUntilText(login.limitedUntil, now)
          : login.headroom === null
            ? "quota unknown"
            : login.blocking?.usedPercent !== undefined
              ? windowText(login.blocking, now)
              : `${Math.round(100 - login.headroom)}% used`;
        const missing = login.exists ? "" : " (not created yet: sign in to create it)";
        lines.push(`      login ${login.label}: ${room} · ${login.home}${missing}`);
      }
    }
    const absent = clis.filter((cli) => !cli.binary);
    lines.push(
      ...notInstalledLines(
        absent.map((cli) => ({ name: cli.name, logins: cli.logins.filter((l) => !l.isDefault).map((l) => l.label) })),
        { indent: "  ", width },
      ),
    );
    lines.push(
      "",
      companion
        ? `Companion running (pid ${companion.pid}, ${companion.running} turn(s) in progress)`
        : "Companion not running (it starts by itself when needed)",
    );
    const withAgents = projects.filter((p) => p.agents.length > 0);
    lines.push("");
    if (withAgents.length === 0) {
      lines.push("No agents yet. In a git repository, start one:", '  offrun start "fix the flaky upload test"');
    }
    for (const project of withAgents) lines.push(project.root, ...indentedTable(project.agents), "");
    for (const host of hosts) {
      if (!host.ok) {
        lines.push(`⚠ ${host.host} did not answer: ${host.message}`, "");
        continue;
      }
      for (const project of host.projects) {
        if (project.agents.length > 0)
          lines.push(`${host.host}:${project.root}`, ...indentedTable(project.agents, host.host), "");
      }
    }
    // A home or a host's message runs as long as it is: cut at the screen's edge (--json has it whole).
    return lines.map((l) => cut(l, width)).join("\n");
  });
}

function indentedTable(agents: AgentRecord[], host?: string): string[] {
  const rows = agentRows(agents).map(([name, ...rest]) => [host ? `${host}:${name}` : name!, ...rest]);
  return table(AGENT_HEADER, rows, { indent: "  " }).split("\n");
}

type HostPart =
  | { host: string; ok: true; projects: { root: string; agents: AgentRecord[] }[] }
  | { host: string; ok: false; message: string };

/** Every host's agents, each host time-boxed; asked only of a running companion (this look starts nothing). */
async function hostsPart(companionRunning: boolean): Promise<HostPart[]> {
  return (await askHosts("hosts.agents", { companionRunning })).map((h): HostPart => {
    if (!h.ok)
      return { host: h.host, ok: false, message: h.companionDown ? `${h.message} (offrun ls starts it)` : h.message };
    const projects = h.value.projects.map((p) => ({ root: p.root, agents: p.agents.map((a) => a.record) }));
    return { host: h.host, ok: true, projects };
  });
}
