import { List } from "@raycast/api";
import { visible } from "../../core/foundation/visible.js";
import type { AgentRow, ContextView } from "../presenters/agents-overview.js";
import { compactCount } from "../../core/foundation/format.js";

/**
 * An agent's facts for the detail pane's metadata. Beside an open detail pane Raycast leaves a row
 * about 24 characters (test/helpers/row-width.ts), so the row keeps its name and status and
 * everything else is here: the task, the login and its session, the time, the context, the branch.
 */

/** "25% · 250k of 1.0M tokens (claude-opus-5-5)" where the model's window is known, else the tokens alone. */
export function contextText(context: ContextView): string {
  const model = context.model ? ` (${context.model})` : "";
  if (context.percent === undefined || context.window === undefined)
    return `${compactCount(context.tokens)} tokens${model}`;
  return `${context.percent}% · ${compactCount(context.tokens)} of ${compactCount(context.window)} tokens${model}`;
}

/** "claude · work, session 42%": the CLI, its login and how much of the login's session is used. */
export function loginText(row: AgentRow): string {
  const session = row.login?.usedPercent === undefined ? "" : `, session ${Math.round(row.login.usedPercent)}%`;
  return `${row.record.harness} · ${row.record.account}${session}`;
}

export function AgentMetadata({ row }: { row: AgentRow }) {
  const { record } = row;
  const Label = List.Item.Detail.Metadata.Label;
  return (
    <List.Item.Detail.Metadata>
      <Label title="Status" text={row.statusTitle} />
      <Label title="Task" text={visible(record.task.split("\n")[0] ?? "", "line")} />
      <Label title="Login" text={loginText(row)} />
      {row.login?.summary ? <Label title="Quota" text={row.login.summary} /> : null}
      {row.elapsed ? <Label title="Elapsed" text={row.elapsed} /> : null}
      {row.context ? <Label title="Context" text={contextText(row.context)} /> : null}
      <Label title="Branch" text={record.branch} />
      {row.host ? <Label title="Host" text={row.host} /> : null}
    </List.Item.Detail.Metadata>
  );
}
