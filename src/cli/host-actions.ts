import { copyBudget, describeRefusal, megabytes, raiseBudgetCommand } from "../core/companion/copy-budget.js";
import { OffrunError } from "../core/foundation/errors.js";
import type { HostCopies } from "../core/protocol/protocol-views.js";
import { addHost, findHost, readHosts, removeHost, setHostBudget } from "../core/remote/hosts-file.js";
import { withCompanion } from "./context.js";
import { elapsed, table } from "./format.js";
import { output, type GlobalOptions } from "./output.js";

/** offrun hosts [add|rm|budget|doctor]: the other machines whose agents show here, over ssh. */

export async function hosts(options: GlobalOptions): Promise<void> {
  const known = await readHosts();
  if (known.length === 0) {
    output(
      options,
      [],
      () => "No hosts yet. Add one: offrun hosts add devbox ssh://me@devbox.internal (or a Host of ~/.ssh/config)",
    );
    return;
  }
  const { status, agents, quota } = await withCompanion(async (client) => {
    const [agents, quota] = await Promise.all([client.call("hosts.agents", {}), client.call("hosts.quota", {})]);
    return { agents, quota, status: await client.call("hosts.status", {}) };
  });
  const rows = status.hosts.map((link) => {
    const listed = agents.hosts.find((h) => h.host === link.name);
    const logins = quota.hosts.find((h) => h.host === link.name);
    return {
      ...link,
      copies: listed?.copies ?? null,
      agents: listed?.ok ? listed.value.projects.reduce((n, p) => n + p.agents.length, 0) : null,
      logins: logins?.ok
        ? logins.value.logins.map((l) => ({ harness: l.harness, label: l.label, signIn: l.signIn.state }))
        : null,
    };
  });
  output(options, rows, () => {
    const lines = table(
      ["HOST", "DESTINATION", "STATE", "OFFRUN", "AGENTS", "COPIES", "LOGINS"],
      rows.map((r) => [
        r.name,
        r.destination,
        r.state === "connected" ? `connected ${elapsed(r.since)}` : r.state,
        r.remote ? `${r.remote.version} on ${r.remote.hostname}` : "-",
        r.agents === null ? "-" : String(r.agents),
        r.copies ? `${megabytes(r.copies.usedBytes)} of ${megabytes(r.copies.folderBudgetBytes)}` : "-",
        r.logins === null
          ? "-"
          : r.logins
              .map((l) => `${l.harness}:${l.label}${l.signIn === "signed-out" ? " (signed out)" : ""}`)
              .join(", ") || "none",
      ]),
    );
    const problems = rows.flatMap((r) =>
      r.state !== "connected" && r.error
        ? [
            `⚠ ${r.name}: ${r.error.message}${r.retryAt ? ` (trying again ${elapsed(new Date().toISOString(), Date.parse(r.retryAt))} from now)` : ""}`,
          ]
        : [],
    );
    const refused = rows.flatMap((r) => (r.copies ? refusedLines(r.name, r.copies) : []));
    return [lines, ...problems, ...refused].join("\n");
  });
}

/** What a host's copies could not take, each agent with its sizes, and the command that lets them. */
function refusedLines(host: string, copies: HostCopies): string[] {
  if (copies.refused.length === 0) return [];
  const lines = copies.refused.map((r) => `⚠ ${host}: ${describeRefusal(host, r, copies)}`);
  const raise = raiseBudgetCommand(host, copies);
  return [...lines, ...(raise ? [`  raise ${host}'s budget: ${raise}`] : [])];
}

export async function add(
  name: string,
  destination: string,
  options: GlobalOptions & BudgetOptions & { sshConfig?: string; offrun?: string },
): Promise<void> {
  const host = await addHost({
    name,
    destination,
    ...(options.sshConfig ? { sshConfig: options.sshConfig } : {}),
    ...(options.offrun ? { offrun: options.offrun } : {}),
    ...budgetGiven(options),
  });
  output(options, host, () =>
    [
      `Added host ${name} (${destination}). The companion connects to it over ssh and keeps the connection.`,
      `  check it:  offrun hosts doctor ${name}`,
      `  start one: offrun start --host ${name} --project /path/on/${name} "…"`,
    ].join("\n"),
  );
}

export async function rm(name: string, options: GlobalOptions): Promise<void> {
  const host = await removeHost(name);
  output(options, host, () => `Removed host ${name}. Its agents go on there; this machine no longer shows them.`);
}

interface BudgetOptions {
  copyMb?: string;
  folderMb?: string;
}

export async function budget(name: string, options: GlobalOptions & BudgetOptions): Promise<void> {
  const change = budgetGiven(options);
  const host = Object.keys(change).length > 0 ? await setHostBudget(name, change) : await findHost(name);
  const { copyBytes, folderBytes } = copyBudget(host);
  output(options, { name, copyBytes, folderBytes }, () =>
    [
      `${name}: one agent's copy holds at most ${megabytes(copyBytes)}, all of ${name}'s copies ${megabytes(folderBytes)}.`,
      ...(Object.keys(change).length > 0
        ? [`The companion connects to ${name} again and copies what fits; see it in: offrun hosts`]
        : []),
    ].join("\n"),
  );
}

function budgetGiven(options: BudgetOptions): { copyMB?: number; folderMB?: number } {
  return {
    ...(options.copyMb === undefined ? {} : { copyMB: megabytesGiven("--copy-mb", options.copyMb) }),
    ...(options.folderMb === undefined ? {} : { folderMB: megabytesGiven("--folder-mb", options.folderMb) }),
  };
}

function megabytesGiven(option: string, text: string): number {
  const mb = Number(text);
  if (!Number.isSafeInteger(mb) || mb <= 0) {
    throw new OffrunError("invalid_input", `${option} takes a whole number of MB, above 0; '${text}' is not one.`);
  }
  return mb;
}

export async function doctor(name: string, options: GlobalOptions): Promise<void> {
  const { doctorHost } = await import("../core/remote/doctor.js");
  const report = await doctorHost(await findHost(name));
  output(options, report, () => {
    if (!report.reachable) return `✗ ${name}: ${report.problem}`;
    const tools = report.tools.map((t) => (t.version ? `✓ ${t.name} ${t.version}` : `✗ ${t.name} missing: ${t.fix}`));
    const clis = report.clis.map((c) =>
      c.installed
        ? `✓ ${c.name} (${c.id}) ${c.version ?? ""}`.trimEnd()
        : `✗ ${c.name} (${c.id}) not installed: ${c.installHint ?? "-"}`,
    );
    const ready = report.tools.every((t) => t.version) && report.clis.some((c) => c.installed);
    return [
      `${name}: reachable over ssh`,
      ...tools.map((t) => `  ${t}`),
      ...(clis.length > 0 ? ["  agent CLIs there:", ...clis.map((c) => `    ${c}`)] : []),
      ready
        ? `${name} is ready: offrun start --host ${name} --project /path/on/${name} "…"`
        : `${name} is not ready yet: fix what is marked ✗ above.`,
    ].join("\n");
  });
  if (!report.reachable) process.exitCode = 1;
}
