import { Action, ActionPanel, Color, Icon, List, type Image, Keyboard, type LaunchProps } from "@raycast/api";
import { useCachedPromise } from "@raycast/utils";
import { useEffect } from "react";
import type { AgentStatus } from "../core/foundation/model.js";
import { devServerUrl } from "../core/views/agent-detail.js";
import { loadAgentDetail } from "../core/views/agent-detail-load.js";
import { loadAgentsOverview, type AgentRow, type ContextView } from "../core/views/agents-overview.js";
import { agentItemId, launchSelection } from "../core/views/agents-launch.js";
import { compactCount } from "../core/views/format.js";
import { loadStartOptions } from "../core/views/start-options.js";
import * as ops from "./agents/companion-calls.js";
import { ChangedFiles, DiffView } from "./agents/agent-detail.js";
import { MessageForm } from "./agents/message-form.js";
import { FailureView } from "./lib/failure.js";
import { faceEnv, preferences } from "./lib/preferences.js";
import { reviewAgentWithProgress } from "./lib/review.js";

/** Agents: every agent of every known project, needs-you first, with its conversation and actions. */

export const STATUS_LOOK: Record<AgentStatus, { icon: Image.ImageLike; color: Color }> = {
  "needs-you": { icon: { source: Icon.Bell, tintColor: Color.Orange }, color: Color.Orange },
  working: { icon: { source: Icon.CircleProgress50, tintColor: Color.Blue }, color: Color.Blue },
  limited: { icon: { source: Icon.Hourglass, tintColor: Color.Yellow }, color: Color.Yellow },
  failed: { icon: { source: Icon.XMarkCircle, tintColor: Color.Red }, color: Color.Red },
  idle: { icon: { source: Icon.Circle, tintColor: Color.SecondaryText }, color: Color.SecondaryText },
  done: { icon: { source: Icon.CheckCircle, tintColor: Color.Green }, color: Color.Green },
};

/** "ctx 42%" where the model's window is known, else the token count alone. */
export function contextAccessory(context: ContextView): List.Item.Accessory {
  const model = context.model ? ` (${context.model})` : "";
  if (context.percent === undefined || context.window === undefined)
    return { text: `ctx ${compactCount(context.tokens)}`, tooltip: `Tokens in context on the last call${model}` };
  return {
    text: `ctx ${context.percent}%`,
    tooltip: `${compactCount(context.tokens)} of ${compactCount(context.window)} tokens in context on the last call${model}`,
  };
}

export function agentAccessories(row: AgentRow): List.Item.Accessory[] {
  const { record } = row;
  const accessories: List.Item.Accessory[] = [];
  if (row.context) accessories.push(contextAccessory(row.context));
  const session = row.login?.usedPercent === undefined ? "" : ` ${Math.round(row.login.usedPercent)}%`;
  accessories.push({ text: `${record.harness} · ${record.account}${session}`, tooltip: row.login?.summary });
  if (row.elapsed) accessories.push({ text: row.elapsed, icon: Icon.Clock });
  accessories.push({ tag: { value: row.statusTitle, color: STATUS_LOOK[record.status].color } });
  return accessories;
}

function AgentDetail({ row }: { row: AgentRow }) {
  const { data, isLoading } = useCachedPromise(loadAgentDetail, [row.record.project, row.record.name]);
  return <List.Item.Detail isLoading={isLoading} markdown={data?.markdown ?? ""} />;
}

function AgentActions({ row, reload }: { row: AgentRow; reload: () => void }) {
  const { record } = row;
  const detail = useCachedPromise(loadAgentDetail, [record.project, record.name]);
  const others = useCachedPromise(() => loadStartOptions({ project: record.project, env: faceEnv() }), [], {
    execute: false,
  });
  const after = (done: Promise<unknown>) => void done.then(reload);
  const prefs = preferences();
  const pending = detail.data?.pending ?? [];
  const first = pending[0];
  const requestId = first && "id" in first ? first.id : undefined;
  const harness = others.data?.harnesses.find((h) => h.id === record.harness);
  return (
    <ActionPanel>
      <ActionPanel.Section>
        {first?.type === "approval_request" ? (
          <>
            <Action title="Approve" icon={Icon.Check} onAction={() => after(ops.approve(record, requestId, {}))} />
            <Action
              title="Deny"
              icon={Icon.XMarkCircle}
              onAction={() => after(ops.approve(record, requestId, { deny: true }))}
            />
            {first.alwaysKey ? (
              <Action
                title={`Always Allow ${first.alwaysKey}`}
                icon={Icon.CheckCircle}
                onAction={() => after(ops.approve(record, requestId, { always: true }))}
              />
            ) : null}
          </>
        ) : null}
        {first?.type === "question" ? (
          <Action.Push
            title="Answer"
            icon={Icon.SpeechBubble}
            target={
              <MessageForm
                record={record}
                title={`Answer ${record.name}`}
                submitTitle="Send Answer"
                onSend={(text) => ops.answer(record, requestId, text)}
              />
            }
          />
        ) : null}
        <Action.Push
          title="Send Message"
          icon={Icon.Envelope}
          target={
            <MessageForm
              record={record}
              title={`Message ${record.name}`}
              submitTitle="Send"
              withDraft
              onSend={(text) => ops.sendMessage(record, text)}
            />
          }
        />
        <Action.Push
          title="Show Diff"
          icon={Icon.Document}
          shortcut={{ modifiers: ["cmd"], key: "d" }}
          target={<DiffView record={record} markdown={detail.data?.diffMarkdown ?? ""} />}
        />
        <Action.Push
          title="Show Changed Files"
          icon={Icon.List}
          target={<ChangedFiles record={record} files={detail.data?.files ?? []} />}
        />
      </ActionPanel.Section>
      <ActionPanel.Section>
        <Action
          title="Review Changes"
          icon={Icon.MagnifyingGlass}
          onAction={() => after(reviewAgentWithProgress(record, false))}
        />
        <Action
          title="Review and Request Fixes"
          icon={Icon.Pencil}
          onAction={() => after(reviewAgentWithProgress(record, true))}
        />
        <ActionPanel.Submenu title="Switch Login" icon={Icon.Person} onOpen={() => others.revalidate()}>
          {(harness?.logins ?? [])
            .filter((login) => login.label !== record.account)
            .map((login) => (
              <Action
                key={login.label}
                title={login.title}
                onAction={() => after(ops.switchLogin(record, login.label))}
              />
            ))}
        </ActionPanel.Submenu>
        <ActionPanel.Submenu title="Hand off to Another CLI" icon={Icon.ArrowRight} onOpen={() => others.revalidate()}>
          {(others.data?.harnesses ?? [])
            .filter((h) => h.id !== record.harness && h.installed)
            .map((h) => (
              <Action key={h.id} title={h.name} onAction={() => after(ops.handOff(record, h.id))} />
            ))}
        </ActionPanel.Submenu>
      </ActionPanel.Section>
      <ActionPanel.Section>
        <Action.Open
          title="Open in Editor"
          icon={Icon.Code}
          target={record.worktree}
          application={prefs.editor}
          shortcut={Keyboard.Shortcut.Common.Edit}
        />
        <Action.Open
          title="Open in Terminal"
          icon={Icon.Terminal}
          target={record.worktree}
          application={prefs.terminal ?? "Terminal"}
          shortcut={{ modifiers: ["cmd"], key: "t" }}
        />
        <Action.ShowInFinder path={record.worktree} />
        <Action.OpenInBrowser title="Open Dev Server" url={devServerUrl(record)} icon={Icon.Globe} />
        <Action.CopyToClipboard title="Copy Branch" content={record.branch} shortcut={Keyboard.Shortcut.Common.Copy} />
      </ActionPanel.Section>
      <ActionPanel.Section>
        <Action
          title="Merge"
          icon={Icon.Checkmark}
          shortcut={{ modifiers: ["cmd", "shift"], key: "m" }}
          onAction={() => after(ops.merge(record))}
        />
        {record.status === "working" || record.status === "needs-you" ? (
          <Action
            title="Stop"
            icon={Icon.Stop}
            shortcut={Keyboard.Shortcut.Common.Pin}
            onAction={() => after(ops.stop(record))}
          />
        ) : null}
        <Action
          title="Discard"
          icon={Icon.Trash}
          style={Action.Style.Destructive}
          shortcut={{ modifiers: ["ctrl"], key: "x" }}
          onAction={() => after(ops.discard(record))}
        />
        <Action
          title="Refresh"
          icon={Icon.ArrowClockwise}
          shortcut={Keyboard.Shortcut.Common.Refresh}
          onAction={reload}
        />
      </ActionPanel.Section>
    </ActionPanel>
  );
}

/** A notification's deeplink launches this with `{project, agent}`: that agent is selected, its detail open. */
export default function Agents(props: Pick<LaunchProps, "launchContext">) {
  const { data, isLoading, error, revalidate } = useCachedPromise(() => loadAgentsOverview({ env: faceEnv() }), [], {
    keepPreviousData: true,
  });
  const selected = launchSelection(data, props.launchContext);
  const busy = data?.groups.some((g) => g.agents.some((a) => a.record.status === "working")) ?? false;
  // While agents work, their status and conversation change under the view: look again every 3 s.
  useEffect(() => {
    if (!busy) return;
    const timer = setInterval(revalidate, 3_000);
    return () => clearInterval(timer);
  }, [busy, revalidate]);

  return (
    <List
      isLoading={isLoading}
      isShowingDetail={(data?.groups.length ?? 0) > 0}
      searchBarPlaceholder="Filter agents"
      selectedItemId={selected}
    >
      {error && !data ? (
        <FailureView error={error} onRetry={revalidate} />
      ) : (
        <List.EmptyView
          icon={Icon.Terminal}
          title="No Agents Yet"
          description="Start one with Start Agent; agents of every project show here."
        />
      )}
      {(data?.groups ?? []).map((group) => (
        <List.Section
          key={group.root}
          title={group.name}
          subtitle={group.needsYou > 0 ? `${group.needsYou} need you` : group.root}
        >
          {group.agents.map((row) => (
            <List.Item
              key={row.record.name}
              id={agentItemId(group.root, row.record.name)}
              icon={STATUS_LOOK[row.record.status].icon}
              title={row.record.name}
              subtitle={row.record.task.split("\n")[0]}
              keywords={[row.record.harness, row.record.account, row.statusTitle, row.record.branch]}
              accessories={agentAccessories(row)}
              detail={<AgentDetail row={row} />}
              actions={<AgentActions row={row} reload={revalidate} />}
            />
          ))}
        </List.Section>
      ))}
    </List>
  );
}
