import { Action, ActionPanel, Color, Icon, List } from "@raycast/api";
import type { HostOverBudget, HostProblem } from "../presenters/agents-overview.js";
import { visible } from "../../core/foundation/visible.js";
import { START_COMPANION_COMMAND } from "./companion.js";

/** A host that did not answer: why, and what to run to find out more (or to start the companion). */
export function HostProblemItem({ problem, onRetry }: { problem: HostProblem; onRetry: () => void }) {
  const doctor = `offrun hosts doctor ${problem.host}`;
  const hint = problem.companionDown
    ? `Start it: \`${START_COMPANION_COMMAND}\``
    : `See what is wrong there: \`${doctor}\`, and each host's connection: \`offrun hosts\``;
  return (
    <List.Item
      id={`unreachable:${problem.host}`}
      icon={{ source: Icon.Warning, tintColor: Color.Orange }}
      // Under the host's own section, beside the detail pane: a short title; the why is in the detail.
      title="Did Not Answer"
      keywords={[problem.host]}
      detail={
        <List.Item.Detail markdown={visible(`## ${problem.host} did not answer\n\n${problem.message}\n\n${hint}`)} />
      }
      actions={
        <ActionPanel>
          <Action title="Try Again" icon={Icon.ArrowClockwise} onAction={onRetry} />
          <Action.CopyToClipboard title="Copy Doctor Command" content={doctor} />
        </ActionPanel>
      }
    />
  );
}

/** A host agent whose log this machine did not copy (further), over a budget: why, and the command that raises it. */
export function HostOverBudgetItem({ item }: { item: HostOverBudget }) {
  const fix = item.raise
    ? `Raise the budget: \`${item.raise}\`. Each host's copies: \`offrun hosts\``
    : "Each host's copies: `offrun hosts`";
  return (
    <List.Item
      id={`over-budget:${item.host}:${item.project}:${item.agent}`}
      icon={{ source: Icon.HardDrive, tintColor: Color.Orange }}
      title={`Not Copied: ${item.agent}`}
      keywords={[item.host, item.agent]}
      detail={
        <List.Item.Detail
          markdown={visible(`## ${item.agent} on ${item.host} is not copied here\n\n${item.message}.\n\n${fix}`)}
        />
      }
      actions={
        item.raise ? (
          <ActionPanel>
            <Action.CopyToClipboard title="Copy Budget Command" content={item.raise} />
          </ActionPanel>
        ) : undefined
      }
    />
  );
}
