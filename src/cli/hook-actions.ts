import path from "node:path";
import { locateBinary } from "../core/foundation/binaries.js";
import { listLogins } from "../core/logins/store.js";
import { isOffrunError, OffrunError } from "../core/foundation/errors.js";
import { hookHarnesses, hookStatus, installHook, uninstallHook } from "../core/hooks/install.js";
import type { Harness } from "../harnesses/types.js";
import { output, packageRoot, type GlobalOptions } from "./output.js";

/** `offrun hooks install|uninstall|status`: Offrun's hook in the CLIs' own settings, per login. */

interface HooksOptions extends GlobalOptions {
  harness?: string;
  login?: string;
  force?: boolean;
}

interface Target {
  harness: Harness;
  login: { label: string; home: string };
}

/** What the CLIs run: this node and this checkout's bin/offrun.js, so no PATH lookup is needed. */
function hookArgv(): string[] {
  return [process.execPath, path.join(packageRoot, "bin", "offrun.js")];
}

export async function install(options: HooksOptions): Promise<void> {
  const installed = new Map<string, boolean>();
  const rows = await forEachTarget(options, async ({ harness, login }) => {
    // No settings written for a CLI that is not installed: its folder would be made for nothing.
    if (!installed.has(harness.id)) {
      installed.set(harness.id, (await locateBinary(harness.id, harness.binaryName)) !== undefined);
    }
    if (!installed.get(harness.id)) {
      return {
        harness: harness.id,
        account: login.label,
        outcome: "skipped",
        error: `${harness.displayName} is not installed (${harness.installHint})`,
      };
    }
    const { file, outcome } = await installHook({ harness, login, hookArgv: hookArgv() });
    return { harness: harness.id, account: login.label, file, outcome };
  });
  report(options, rows, "Sessions started outside Offrun now report to it; `offrun hooks uninstall` undoes this.");
}

export async function uninstall(options: HooksOptions): Promise<void> {
  const rows = await forEachTarget(options, async ({ harness, login }) => {
    const result = await uninstallHook({ harness, login, force: options.force });
    return { harness: harness.id, account: login.label, ...result, outcome: UNINSTALLED[result.outcome] };
  });
  report(options, rows);
}

/** What an uninstall did, in words. */
const UNINSTALLED = {
  restored: "removed (the settings are as they were before)",
  deleted: "removed (Offrun had made the file, and deleted it)",
  not_installed: "not installed: nothing to remove",
} as const;

export async function status(options: HooksOptions): Promise<void> {
  const rows = await forEachTarget(options, async ({ harness, login }) => {
    const state = await hookStatus({ harness, login, hookArgv: hookArgv() });
    const outcome = !state.present
      ? state.recorded
        ? "removed by hand"
        : "not installed"
      : state.changedSince
        ? "installed, file changed since (uninstall needs --force)"
        : "installed";
    return { harness: harness.id, account: login.label, ...state, outcome };
  });
  report(options, rows);
}

type Row = { harness: string; account: string; file?: string; outcome: string; error?: string; replacedCopy?: string };

/** Runs `action` for every login chosen by --harness/--login; a login that fails is reported, not fatal. */
async function forEachTarget(options: HooksOptions, action: (target: Target) => Promise<Row>): Promise<Row[]> {
  const targets = await chooseTargets(options);
  const rows: Row[] = [];
  for (const target of targets) {
    try {
      rows.push(await action(target));
    } catch (error) {
      // One login's trouble must not leave the others half done; a single chosen login fails loudly.
      if (targets.length === 1) throw error;
      rows.push({
        harness: target.harness.id,
        account: target.login.label,
        outcome: isOffrunError(error, "not_found") ? "skipped" : "failed",
        error: (error as Error).message,
      });
    }
  }
  if (rows.length > 1 && rows.every((row) => row.outcome === "failed")) {
    process.exitCode = 1;
  }
  return rows;
}

async function chooseTargets(options: HooksOptions): Promise<Target[]> {
  const all = hookHarnesses();
  const harnesses = options.harness === undefined ? all : all.filter((h) => h.id === options.harness);
  if (harnesses.length === 0) {
    throw new OffrunError(
      "invalid_input",
      `Offrun installs hooks for ${all.map((h) => h.id).join(", ")}, not '${options.harness}'.`,
    );
  }
  const targets: Target[] = [];
  for (const harness of harnesses) {
    for (const login of await listLogins(harness.id)) {
      if (options.login === undefined || login.label === options.login) targets.push({ harness, login });
    }
  }
  if (targets.length === 0) {
    throw new OffrunError(
      "not_found",
      `No login '${options.login}' for ${harnesses.map((h) => h.id).join(" or ")}. See \`offrun logins\` for the logins.`,
    );
  }
  return targets;
}

function report(options: HooksOptions, rows: Row[], footer?: string): void {
  output(options, rows, () => {
    const lines = rows.map((row) => {
      const where = row.file ? ` (${row.file})` : "";
      const extra = row.error
        ? `: ${row.error}`
        : row.replacedCopy
          ? `; the changed file is kept as ${row.replacedCopy}`
          : "";
      return `${row.harness} ${row.account}: ${row.outcome}${where}${extra}`;
    });
    if (footer && rows.some((row) => row.outcome === "installed")) lines.push(footer);
    return lines.join("\n");
  });
}
