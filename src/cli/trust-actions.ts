import fs from "node:fs/promises";
import { findRepoRoot } from "../core/git/repo.js";
import { loadProjectSettings } from "../core/foundation/project.js";
import { describeGated, revokeTrust, trustRepository } from "../core/foundation/trust.js";
import { output, projectDir, type GlobalOptions } from "./output.js";

interface TrustOptions extends GlobalOptions {
  yes?: boolean;
  revoke?: boolean;
}

/**
 * offrun trust: shows the repository's settings that run or widen anything, and with --yes
 * trusts them as they are (asked again when they change); --revoke takes the trust back.
 */
export async function trust(options: TrustOptions): Promise<void> {
  const root = await findRepoRoot(projectDir(options));
  const before = await loadProjectSettings(root);
  if (options.revoke) await revokeTrust(root);
  else if (options.yes) await trustRepository(root, before.raw);
  const after = options.yes || options.revoke ? await loadProjectSettings(root) : before;
  const settings = describeGated(before.raw);
  const hasConfig = await fs.stat(before.file).then(
    () => true,
    () => false,
  );
  output(options, { root, trusted: after.trust.trusted, changedSince: after.trust.changedSince, settings }, () => {
    const config = `${root}/.offrun/config.json`;
    // Nothing to trust is the whole answer: no file, or one that names nothing that runs.
    if (settings.length === 0) {
      return !hasConfig
        ? `${root} has no .offrun/config.json: there is nothing to trust, and nothing of the repository's runs.`
        : `${config}\n  names nothing that runs or widens anything: there is nothing to trust.`;
    }
    const lines = [config];
    for (const { key, value, effect } of settings) lines.push(`  ${key}: ${effect}:`, `    ${JSON.stringify(value)}`);
    if (options.revoke) lines.push("Not trusted any more: these settings are left out until you trust them again.");
    else if (after.trust.trusted) lines.push("Trusted, as they are now: a change to any of them is asked again.");
    else {
      lines.push(
        before.trust.changedSince
          ? "Not trusted: these settings changed since you trusted them, and are left out until you trust them again."
          : "Not trusted yet: these settings are left out. Read them, then `offrun trust --yes` to trust them.",
      );
    }
    return lines.join("\n");
  });
}
