import { listLogins } from "../core/logins/store.js";
import { locateBinaryAndVersion } from "../core/foundation/binaries.js";
import { findRepoRoot } from "../core/git/repo.js";
import { isBuiltinHarness, listHarnesses } from "../harnesses/registry.js";
import type { Harness } from "../harnesses/types.js";
import { sandboxSupport, type SandboxSupport } from "../core/sandbox/support.js";
import { output, projectDir, type GlobalOptions } from "./output.js";

/** offrun harnesses: every agent CLI Offrun can run, whether it is installed, and what it supports. */
export async function harnesses(options: GlobalOptions): Promise<void> {
  // Custom ACP agents come from ~/.offrun/harnesses.json and, inside a project, its config.
  const root = await findRepoRoot(projectDir(options)).catch(() => undefined);
  const support = await sandboxSupport();
  const rows = await Promise.all(
    (await listHarnesses({ project: root, tolerant: true })).map((h) => describe(h, support)),
  );
  output(options, rows, () =>
    rows
      .map((h) => {
        const head = h.binary
          ? `✓ ${h.name} (${h.id}) ${h.version ?? "(version unknown)"}  ${h.binary}`
          : `✗ ${h.name} (${h.id}) not installed: ${h.installHint}`;
        return [
          head,
          ...(h.minimumVersion
            ? [`    requires:  ${h.id} ${h.minimumVersion.version} or later (${h.minimumVersion.verified})`]
            : []),
          `    logins:    ${h.logins.join(", ")}  (home variable ${h.homeVariable})`,
          `    modes:     Build, Planner${h.custom ? " · custom ACP agent" : ""}`,
          `    approvals: ${h.approvals}`,
          `    quota:     ${h.quotaSources.length > 0 ? h.quotaSources.join(" → ") : "no source; limits are recorded from its own messages"}`,
          `    sandbox:   ${describeSandbox(h.sandbox)}`,
        ].join("\n");
      })
      .join("\n\n"),
  );
}

/** "yes, reaching api.anthropic.com, …", or what is missing and how to install it. */
function describeSandbox(sandbox: {
  available: boolean;
  hosts: string[];
  problems: string[];
  install?: string;
}): string {
  if (!sandbox.available) {
    return `no: ${sandbox.problems.join("; ")}${sandbox.install ? ` (install: ${sandbox.install})` : ""}`;
  }
  const hosts =
    sandbox.hosts.length > 0 ? sandbox.hosts.join(", ") : "no host of its own: list them with sandbox.allowHosts";
  return `yes (--sandbox); reaches ${hosts}, plus its login's base URLs`;
}

async function describe(harness: Harness, support: SandboxSupport) {
  const { binary, version } = await locateBinaryAndVersion(harness);
  const logins = (await listLogins(harness).catch(() => [])).map((a) => a.label);
  return {
    id: harness.id,
    name: harness.displayName,
    binary: binary ?? null,
    version: version ?? null,
    installHint: harness.installHint,
    homeVariable: harness.homeVariable,
    logins,
    interactiveApprovals: harness.live !== undefined && harness.liveAsks !== false,
    ...(harness.minimumVersion ? { minimumVersion: harness.minimumVersion } : {}),
    custom: !isBuiltinHarness(harness.id),
    approvals: harness.approvals,
    quotaSources: harness.quotaSources.map((s) => s.id),
    sandbox: {
      available: support.available,
      hosts: [...harness.sandbox.hosts],
      problems: support.problems,
      ...(support.install ? { install: support.install } : {}),
    },
  };
}
