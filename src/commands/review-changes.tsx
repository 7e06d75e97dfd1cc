import { Action, ActionPanel, Detail, Icon, List, Toast, showToast, type LaunchProps } from "@raycast/api";
import { useCachedPromise, usePromise } from "@raycast/utils";
import type { ReviewEvent } from "../core/foundation/events.js";
import { fixRequest } from "../core/review/fixes.js";
import { visible } from "../core/foundation/visible.js";
import { eventMarkdown } from "./presenters/agent-detail.js";
import { loadAgentsOverview } from "./presenters/agents-overview-load.js";
import { loadLaunchedReview, reviewLaunch, type ReviewLaunchContext } from "./presenters/review-launch.js";
import { STATUS_LOOK } from "./agents.js";
import { shownName, withAgentCompanion, type AgentTarget } from "./lib/companion.js";
import { FailureView, showFailure } from "./lib/failure.js";
import { faceEnv } from "./lib/preferences.js";
import { startReview } from "./lib/review.js";
import { useSubmitOnce } from "./lib/submit-once.js";
import { byCodeUnits } from "../core/foundation/text-order.js";
import { inertMarkdown } from "./presenters/inert-markdown.js";

/**
 * Review Changes: the most recently active agent first; Enter starts a review of it with the
 * configured reviewer and returns. The companion runs the review; when it is done, its
 * notification opens this command on the findings (launch context: the agent and the review's id).
 */

/** The agent a review is about, as a deeplink names it. */
type Reviewed = Pick<ReviewLaunchContext, "project" | "agent" | "host">;

function Findings({ agent, review }: { agent: Reviewed; review: ReviewEvent | undefined }) {
  const target = { record: { name: agent.agent }, ...(agent.host ? { host: agent.host } : {}) };
  const fixes = review?.type === "review" ? fixRequest(review) : undefined;
  return (
    <Detail
      navigationTitle={`Review of ${shownName(target)}`}
      markdown={inertMarkdown(
        visible(
          review
            ? (eventMarkdown(review) ?? "")
            : `*No such review in ${shownName(target)}'s conversation: the agent may have been discarded.*`,
        ),
      )}
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
                    client.call("draft.add", { project: agent.project, name: agent.agent, text: fixes }),
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

/** The findings a notification's deeplink names, read from the agent's chat log. */
function LaunchedFindings({ context }: { context: ReviewLaunchContext }) {
  const { data, isLoading, error, revalidate } = usePromise(loadLaunchedReview, [context]);
  if (error) {
    return (
      <List searchBarPlaceholder="Review">
        <FailureView error={error} onRetry={revalidate} />
      </List>
    );
  }
  if (isLoading) return <Detail isLoading markdown="" navigationTitle="Review" />;
  return <Findings agent={context} review={data} />;
}

export default function ReviewChanges(props: Pick<LaunchProps, "launchContext">) {
  const launched = reviewLaunch(props.launchContext);
  return launched ? <LaunchedFindings context={launched} /> : <ReviewList />;
}

function ReviewList() {
  const { data, isLoading, error, revalidate } = useCachedPromise(async () => {
    const overview = await loadAgentsOverview({ env: faceEnv() });
    // This machine's agents and every host's (a host's reviewer runs there, read-only too).
    return overview.groups
      .flatMap((g) => g.agents.map((a): AgentTarget => ({ record: a.record, ...(a.host ? { host: a.host } : {}) })))
      .filter((t) => t.record.status !== "done")
      .sort((a, b) => byCodeUnits(b.record.updatedAt, a.record.updatedAt));
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
  // Starts and returns: the review runs on in the companion, and its notification opens the findings.
  const review = once(
    async (requestFixes: boolean) => void (await startReview(target, requestFixes)),
    `${target.host ?? ""}:${target.record.project}/${target.record.name}`,
  );
  return (
    <ActionPanel>
      <Action title="Review" icon={Icon.MagnifyingGlass} onAction={() => void review(false)} />
      <Action title="Review and Request Fixes" icon={Icon.Pencil} onAction={() => void review(true)} />
    </ActionPanel>
  );
}
