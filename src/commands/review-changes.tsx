import { Action, ActionPanel, Detail, Icon, List, Toast, showToast, useNavigation } from "@raycast/api";
import { useCachedPromise } from "@raycast/utils";
import { fixRequest } from "../core/review/fixes.js";
import { visible } from "../core/foundation/visible.js";
import { eventMarkdown } from "./presenters/agent-detail.js";
import { loadAgentsOverview } from "./presenters/agents-overview-load.js";
import { STATUS_LOOK } from "./agents.js";
import { shownName, withAgentCompanion, type AgentTarget } from "./lib/companion.js";
import { FailureView, showFailure } from "./lib/failure.js";
import { faceEnv } from "./lib/preferences.js";
import { reviewAgentWithProgress, type ReviewOutcome } from "./lib/review.js";
import { useSubmitOnce } from "./lib/submit-once.js";

/** Review Changes: the most recently active agent first; Enter reviews it with the configured reviewer. */

function Findings({ target, outcome }: { target: AgentTarget; outcome: ReviewOutcome }) {
  const { record } = target;
  const review = outcome.review;
  const fixes = review.type === "review" ? fixRequest(review) : undefined;
  return (
    <Detail
      navigationTitle={`Review of ${shownName(target)}`}
      markdown={visible([eventMarkdown(review) ?? "", ...outcome.warnings.map((w) => `⚠ ${w}`)].join("\n\n"))}
      actions={
        <ActionPanel>
          {fixes ? (
            <Action
              title="Request Fixes"
              icon={Icon.Pencil}
              onAction={async () => {
                try {
                  // Through the companion, under the draft's lock: a review adding fixes at that moment keeps them both.
                  await withAgentCompanion(target, (client) =>
                    client.call("draft.add", { project: record.project, name: record.name, text: fixes }),
                  );
                  await showToast({
                    style: Toast.Style.Success,
                    title: "Fixes Drafted",
                    message: `In ${shownName(target)}'s message box; nothing is sent yet`,
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
    // This machine's agents and every host's (a host's reviewer runs there, read-only too).
    return overview.groups
      .flatMap((g) => g.agents.map((a): AgentTarget => ({ record: a.record, ...(a.host ? { host: a.host } : {}) })))
      .filter((t) => t.record.status !== "done")
      .sort((a, b) => b.record.updatedAt.localeCompare(a.record.updatedAt));
  }, []);
  // One review of an agent at a time: a second Enter meanwhile started a second review of the same changes.
  const { submitting: reviewing, once } = useSubmitOnce();
  return (
    <List isLoading={isLoading || reviewing} searchBarPlaceholder="Choose the agent to review">
      {error ? (
        <FailureView error={error} onRetry={revalidate} />
      ) : isLoading ? null : (
        <List.EmptyView
          title="Nothing to Review"
          description="Agents with a worktree show here, most recently active first."
        />
      )}
      {(data ?? []).map((target) => (
        <List.Item
          key={`${target.host ?? ""}:${target.record.project}/${target.record.name}`}
          icon={STATUS_LOOK[target.record.status].icon}
          title={shownName(target)}
          subtitle={target.record.task.split("\n")[0]}
          accessories={[
            { text: `${target.record.project.split("/").at(-1)}${target.host ? ` on ${target.host}` : ""}` },
            { date: new Date(target.record.updatedAt) },
          ]}
          actions={<ReviewActions target={target} once={once} />}
        />
      ))}
    </List>
  );
}

function ReviewActions({ target, once }: { target: AgentTarget; once: ReturnType<typeof useSubmitOnce>["once"] }) {
  const { push } = useNavigation();
  const review = once(
    async (requestFixes: boolean) => {
      const outcome = await reviewAgentWithProgress(target, requestFixes);
      if (outcome) push(<Findings target={target} outcome={outcome} />);
    },
    `${target.host ?? ""}:${target.record.project}/${target.record.name}`,
  );
  return (
    <ActionPanel>
      <Action title="Review" icon={Icon.MagnifyingGlass} onAction={() => void review(false)} />
      <Action title="Review and Request Fixes" icon={Icon.Pencil} onAction={() => void review(true)} />
    </ActionPanel>
  );
}
