import { MIN_NODE, NODE_DOWNLOAD_URL, NODE_INSTALL_COMMAND, launcherPaths } from "../../core/setup/launcher.js";
import { CLI_INSTALL_COMMAND, type SetupResult, type SetupStep } from "../../core/setup/set-up.js";

/** The text of Set Up Offrun's views: a step's detail pane, and the help page. */

/** The detail pane of one step. */
export function setupStepMarkdown(step: SetupStep): string {
  const fix = step.fix ? `\n\nTo fix it, run in a terminal:\n\n\`\`\`sh\n${step.fix}\n\`\`\`` : "";
  return `## ${step.title}\n\n${step.detail}${fix}`;
}

/** The first command that fixes a step that is not done, for "Copy Install Command". */
export function installCommand(result: SetupResult | undefined): string | undefined {
  return result?.steps.find((s) => s.status === "failed" && s.fix)?.fix ?? result?.steps.find((s) => s.fix)?.fix;
}

/** What Offrun needs, what setup installs and where, and how to undo it. */
export function setupHelpMarkdown(env: NodeJS.ProcessEnv, result?: SetupResult): string {
  const { launcher, lib } = launcherPaths(env);
  const missing = result?.steps.filter((s) => s.status === "failed" || s.status === "warning") ?? [];
  return [
    "# Set Up Offrun",
    "",
    "Offrun's commands run agents through the `offrun` command line tool and its companion, a background",
    "process that keeps agents running after Raycast closes a command. Set Up Offrun installs both from",
    "this extension; nothing is downloaded.",
    "",
    ...(missing.length ? ["## What is missing", "", ...missing.map((s) => `- **${s.title}**: ${s.detail}`), ""] : []),
    "## What it needs",
    "",
    `**Node.js ${MIN_NODE.major}.${MIN_NODE.minor} or newer.** Raycast's own Node changes with every Raycast update, so Offrun runs with`,
    "yours. Install it with Homebrew, or with the installer from nodejs.org, then run Set Up Offrun again:",
    "",
    "```sh",
    NODE_INSTALL_COMMAND,
    "```",
    "",
    `The installer: ${NODE_DOWNLOAD_URL}. Node from nvm, fnm, Volta, mise or asdf works too.`,
    "",
    "## What it installs",
    "",
    `- \`${lib}\`: the offrun command line tool of this extension.`,
    `- \`${launcher}\`: a small script that finds Node each time it runs and starts offrun with it.`,
    "- A link to it in `/usr/local/bin` (or Homebrew's folder, or `~/.local/bin`), so `offrun` works in a terminal.",
    "- The companion as a login item (a launchd agent, `~/Library/LaunchAgents/dev.offrun.companion.plist`) that runs the script.",
    "",
    "## In a terminal",
    "",
    "The same install without Raycast, from npm:",
    "",
    "```sh",
    `${CLI_INSTALL_COMMAND} && offrun setup`,
    "```",
    "",
    "## Undo",
    "",
    "```sh",
    `offrun companion uninstall && rm -rf "${launcher}" "${lib}"`,
    "```",
    "",
    "Then remove the `offrun` link the setup made, if any.",
  ].join("\n");
}
