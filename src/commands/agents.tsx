import { Color, Icon, List, type Image, type LaunchProps } from "@raycast/api";
import { useCachedPromise } from "@raycast/utils";
import { useMemo, useRef, useState } from "react";
import type { AgentStatus } from "../core/foundation/model.js";
import { visible } from "../core/foundation/visible.js";
import { loadAgentDetail } from "./presenters/agent-detail-load.js";
import { type AgentRow } from "./presenters/agents-overview.js";
import { loadAgentsOverview } from "./presenters/agents-overview-load.js";
import { loadHostAgentDetail } from "./presenters/host-agents.js";
import { agentItemId, launchSelection, selectedAgentId } from "./presenters/agents-launch.js";
import { detailMarkdown } from "./presenters/agent-detail.js";
import { AgentActions } from "./agents/agent-actions.js";
import { AgentMetadata } from "./agents/agent-metadata.js";
import { FailureView } from "./lib/failure.js";
import { HostOverBudgetItem, HostProblemItem } from "./lib/host-problem.js";
import { FileProblemItem } from "./lib/file-problem.js";
import { viewFileProblems } from "./presenters/file-problems.js";
import { usePoll } from "./lib/poll.js";
import { faceEnv } from "./lib/preferences.js";

/** Agents: every agent of every known project, needs-you first, with its conversation and actions. */

export const STATUS_LOOK: Record<AgentStatus, { icon: Image.ImageLike; color: Color }> = {
  "needs-you": { icon: { source: Icon.Bell, tintColor: Color.Orange }, color: Color.Orange },
  working: { icon: { source: Icon.CircleProgress50, tintColor: Color.Blue }, color: Color.Blue },
  limited: { icon: { source: Icon.Hourglass, tintColor: Color.Yellow }, color: Color.Yellow },
  failed: { icon: { source: Icon.XMarkCircle, tintColor: Color.Red }, color: Color.Red },
  idle: { icon: { source: Icon.Circle, tintColor: Color.SecondaryText }, color: Color.SecondaryText },
  done: { icon: { source: Icon.CheckCircle, tintColor: Color.Green }, color: Color.Green },
};

/**
 * A row's one accessory beside the detail pane: its status. Raycast draws accessories in the row's
 * width beside an open detail, where they cut the title short; the rest is in AgentMetadata.
 */
export function statusAccessory(row: AgentRow): List.Item.Accessory {
  return { tag: { value: row.statusTitle, color: STATUS_LOOK[row.record.status].color } };
}

/**
 * A notification's deeplink launches this with `{project, agent}`: that agent is selected, its detail open.
 * Only the selected agent's detail (conversation, pending requests, diff) is loaded: a diff runs git
 * several times, and Raycast shows one row's detail and actions at a time.
 */
export default function Agents(props: Pick<LaunchProps, "launchContext">) {
  const overviewCall = useRef<AbortController | null>(null);
  const overview = useCachedPromise(
    () => loadAgentsOverview({ env: faceEnv(), signal: overviewCall.current?.signal }),
    [],
    { keepPreviousData: true, abortable: overviewCall },
  );
  const { data, isLoading, error } = overview;
  const rows = useMemo(
    () =>
      (data?.groups ?? []).flatMap((g) =>
        g.agents.map((row) => ({ id: agentItemId(g.root, row.record.name, g.host), row })),
      ),
    [data],
  );
  const fileProblems = useMemo(() => viewFileProblems(data?.problems ?? []), [data]);
  const launched = launchSelection(data, props.launchContext);
  // What Raycast last reported selected (undefined until it says, null when the search hides every row).
  const [reported, setReported] = useState<string | null>();
  const selectedId = selectedAgentId(
    rows.map((r) => r.id),
    reported,
    launched,
  );
  const selected = rows.find((r) => r.id === selectedId)?.row;
  // A host's agent is read with its latest record (the conversation's status and turn decide what waits).
  const selectedRecord = useRef(selected?.record);
  selectedRecord.current = selected?.record;
  const detailCall = useRef<AbortController | null>(null);
  const detail = useCachedPromise(
    (project: string, name: string, host: string) => {
      const signal = detailCall.current?.signal;
      return host && selectedRecord.current
        ? loadHostAgentDetail(host, selectedRecord.current, { signal })
        : loadAgentDetail(project, name, { signal });
    },
    [selected?.record.project ?? "", selected?.record.name ?? "", selected?.host ?? ""],
    { execute: selected !== undefined, abortable: detailCall },
  );
  const reload = () => {
    void overview.revalidate();
    if (selected) void detail.revalidate();
  };
  // Per host: why it did not answer, and what of its logs is not copied here (one section a host).
  const hostNotes = [...new Set([...(data?.unreachable ?? []), ...(data?.overBudget ?? [])].map((n) => n.host))].map(
    (host) => ({
      host,
      problem: data?.unreachable.find((p) => p.host === host),
      overBudget: (data?.overBudget ?? []).filter((o) => o.host === host),
    }),
  );
  const busy = rows.some((r) => r.row.record.status === "working");
  // While agents work, their status and conversation change under the view: look again every 3 s,
  // one look at a time; each aborts the one before it, and closing the view aborts both.
  usePoll(() => Promise.all([overview.revalidate(), selected ? detail.revalidate() : undefined]), 3_000, busy);

  return (
    <List
      isLoading={isLoading}
      isShowingDetail={rows.length > 0 || hostNotes.length > 0 || fileProblems.length > 0}
      searchBarPlaceholder="Filter agents"
      selectedItemId={launched}
      onSelectionChange={setReported}
    >
      {error && !data ? (
        <FailureView error={error} onRetry={reload} />
      ) : isLoading ? null : (
        <List.EmptyView
          icon={Icon.Terminal}
          title="No Agents Yet"
          description="Start one with Start Agent; agents of every project show here."
        />
      )}
      {(data?.groups ?? []).map((group) => (
        <List.Section
          key={agentItemId(group.root, "", group.host)}
          title={group.name}
          subtitle={group.needsYou > 0 ? `${group.needsYou} need you` : group.root}
        >
          {group.agents.map((row) => {
            const id = agentItemId(group.root, row.record.name, group.host);
            const isSelected = id === selectedId;
            return (
              <List.Item
                key={row.record.name}
                id={id}
                icon={STATUS_LOOK[row.record.status].icon}
                title={row.record.name}
                keywords={[
                  ...row.record.task
                    .split(/\s+/)
                    .slice(0, 20)
                    .map((word) => visible(word, "line")),
                  row.record.harness,
                  row.record.account,
                  row.statusTitle,
                  row.record.branch,
                  ...(row.host ? [row.host] : []),
                ]}
                accessories={[statusAccessory(row)]}
                detail={
                  <List.Item.Detail
                    // Until the new selection's load starts, the hook still says "not loading": no empty flash.
                    isLoading={isSelected ? detail.isLoading || (!detail.data && !detail.error) : true}
                    markdown={isSelected && detail.data ? detailMarkdown(detail.data) : ""}
                    metadata={<AgentMetadata row={row} />}
                  />
                }
                actions={
                  <AgentActions
                    row={row}
                    detail={isSelected ? detail.data : undefined}
                    isSelected={isSelected}
                    reload={reload}
                  />
                }
              />
            );
          })}
        </List.Section>
      ))}
      {hostNotes.map(({ host, problem, overBudget }) => (
        <List.Section key={`unreachable:${host}`} title={host}>
          {problem ? <HostProblemItem problem={problem} onRetry={reload} /> : null}
          {overBudget.map((item) => (
            <HostOverBudgetItem key={`${item.project}:${item.agent}`} item={item} />
          ))}
        </List.Section>
      ))}
      {fileProblems.length > 0 ? (
        <List.Section title="Offrun's Files">
          {fileProblems.map((problem) => (
            <FileProblemItem key={problem.id} problem={problem} onRetry={reload} />
          ))}
        </List.Section>
      ) : null}
    </List>
  );
}
