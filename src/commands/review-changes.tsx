import { Action, ActionPanel, Detail, Icon, List, Toast, showToast, useNavigation } from "@raycast/api";
import { useCachedPromise } from "@raycast/utils";
import type { AgentRecord } from "../core/foundation/model.js";
import { fixRequest } from "../core/review/fixes.js";
import { eventMarkdown } from "../core/views/agent-detail.js";
import { loadAgentsOverview } from "../core/views/agents-overview.js";
import { STATUS_LOOK } from "./agents.js";
import { withCompanion } from "./lib/companion.js";
import { FailureView, showFailure } from "./lib/failure.js";
import { faceEnv } from "./lib/preferences.js";
import { reviewAgentWithProgress, type ReviewOutcome } from "./lib/review.js";

/** Review Changes: the most recently active agent first; Enter reviews it with the configured reviewer. */

function Findings({ record, outcome }: { record: AgentRecord; outcome: ReviewOutcome }) {
  const review = outcome.review;
  const fixes = review.type === "review" ? fixRequest(review) : undefined;
  return (
    <Detail
      navigationTitle={`Review of ${record.name}`}
      markdown={[eventMarkdown(review) ?? "", ...outcome.warnings.map((w) => `⚠ ${w}`)].join("\n\n")}
      actions={
        <ActionPanel>
          {fixes ? (
            <Action
              title="Request Fixes"
              icon={Icon.Pencil}
              onAction={async () => {
                try {
                  // Through the companion, under the draft's lock: a review adding fixes at that moment keeps them both.
                  await withCompanion((client) =>
                    client.call("draft.add", { project: record.project, name: record.name, text: fixes }),
                  );
                  await showToast({
                    style: Toast.Style.Success,
                    title: "Fixes Drafted",
                    message: `In ${record.name}'s message box; nothing is sent yet`,
                  });
                } catch (error) {
                  await showFailure(error, "Could Not Write the Draft");
                }
              }}
            />
          ) : null}
        </ActionPanel>
      }
    />
  );
}

export default function ReviewChanges() {
  const { data, isLoading, error, revalidate } = useCachedPromise(async () => {
    const overview = await loadAgentsOverview({ env: faceEnv() });
    return overview.groups
      .flatMap((g) => g.agents.map((a) => a.record))
      .filter((r) => r.status !== "done")
      .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
  }, []);
  return (
    <List isLoading={isLoading} searchBarPlaceholder="Choose the agent to review">
      {error ? (
        <FailureView error={error} onRetry={revalidate} />
      ) : (
        <List.EmptyView
          title="Nothing to Review"
          description="Agents with a worktree show here, most recently active first."
        />
      )}
      {(data ?? []).map((record) => (
        <List.Item
          key={`${record.project}/${record.name}`}
          icon={STATUS_LOOK[record.status].icon}
          title={record.name}
          subtitle={record.task.split("\n")[0]}
          accessories={[{ text: record.project.split("/").at(-1) }, { date: new Date(record.updatedAt) }]}
          actions={<ReviewActions record={record} />}
        />
      ))}
    </List>
  );
}

function ReviewActions({ record }: { record: AgentRecord }) {
  const { push } = useNavigation();
  const review = async (requestFixes: boolean) => {
    const outcome = await reviewAgentWithProgress(record, requestFixes);
    if (outcome) push(<Findings record={record} outcome={outcome} />);
  };
  return (
    <ActionPanel>
      <Action title="Review" icon={Icon.MagnifyingGlass} onAction={() => void review(false)} />
      <Action title="Review and Request Fixes" icon={Icon.Pencil} onAction={() => void review(true)} />
    </ActionPanel>
  );
}
