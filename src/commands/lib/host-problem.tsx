import { Action, ActionPanel, Color, Icon, List } from "@raycast/api";
import type { HostProblem } from "../presenters/agents-overview.js";
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
