import { Action, ActionPanel, Color, Icon, List } from "@raycast/api";
import type { FileProblemView } from "../presenters/file-problems.js";

/** One of Offrun's files that is damaged, or was repaired lately: what happened and what to do, in the detail. */
export function FileProblemItem({ problem, onRetry }: { problem: FileProblemView; onRetry: () => void }) {
  const damaged = problem.state === "Damaged";
  return (
    <List.Item
      id={problem.id}
      icon={damaged ? { source: Icon.Warning, tintColor: Color.Orange } : { source: Icon.Info }}
      title={problem.title}
      keywords={[problem.file]}
      accessories={[{ tag: { value: problem.state, color: damaged ? Color.Orange : Color.SecondaryText } }]}
      detail={<List.Item.Detail markdown={problem.markdown} />}
      actions={
        <ActionPanel>
          {problem.host ? null : <Action.ShowInFinder title="Show File in Finder" path={problem.file} />}
          <Action.CopyToClipboard title="Copy File Path" content={problem.file} />
          <Action.CopyToClipboard title="Copy Message" content={problem.message} />
          <Action title="Check Again" icon={Icon.ArrowClockwise} onAction={onRetry} />
        </ActionPanel>
      }
    />
  );
}
