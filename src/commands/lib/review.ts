import { Toast, showToast } from "@raycast/api";
import type { ReviewFinished } from "../../core/protocol/protocol.js";
import { OffrunError } from "../../core/foundation/errors.js";
import { shownName, withAgentCompanion, type AgentTarget } from "./companion.js";
import { showFailure } from "./failure.js";

export type ReviewOutcome = ReviewFinished;

/** A host's reviewer runs there as long as it needs; the answer comes when it is done. */
const REVIEW_MS = 60 * 60_000;

/**
 * Reviews an agent's changes with the configured reviewer through the companion (it runs the
 * reviewer read-only in a scratch worktree); a toast follows it. With `requestFixes`, the
 * findings go into the agent's message box as a draft, never sent by themselves.
 */
export async function reviewAgentWithProgress(
  target: AgentTarget,
  requestFixes: boolean,
): Promise<ReviewOutcome | undefined> {
  const { record } = target;
  const toast = await showToast({
    style: Toast.Style.Animated,
    title: `Reviewing ${shownName(target)}…`,
    message: "Read-only, with another login",
  });
  try {
    const result = await withAgentCompanion(
      target,
      (c) => c.call("agent.review", { project: record.project, name: record.name, wait: true, requestFixes }),
      REVIEW_MS,
    );
    if (!("review" in result)) {
      throw new OffrunError(
        "unreadable_output",
        "The companion answered agent.review without the review it waited for.",
      );
    }
    const review = result.review;
    if (review.type !== "review" || review.outcome !== "completed") {
      toast.style = Toast.Style.Failure;
      toast.title = "Review Did Not Complete";
      toast.message = review.type === "review" ? (review.reason ?? review.outcome) : undefined;
      return result;
    }
    toast.style = Toast.Style.Success;
    toast.title = `Review: ${(review.verdict ?? "comment").replace("_", " ")}`;
    toast.message = `${review.findings.length} finding(s)${result.draft ? "; fixes drafted in the message box" : ""}`;
    return result;
  } catch (error) {
    await toast.hide();
    await showFailure(error, "Review Failed");
    return undefined;
  }
}
