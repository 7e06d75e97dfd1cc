import { Toast, showToast } from "@raycast/api";
import { z } from "zod";
import { agentEventSchema } from "../../core/foundation/events.js";
import type { AgentRecord } from "../../core/foundation/model.js";
import { withCompanion } from "./companion.js";
import { showFailure } from "./failure.js";

const reviewResultSchema = z.object({
  review: agentEventSchema,
  draft: z.string().optional(),
  warnings: z.array(z.string()),
});
export type ReviewOutcome = z.infer<typeof reviewResultSchema>;

/**
 * Reviews an agent's changes with the configured reviewer through the companion (it runs the
 * reviewer read-only in a scratch worktree); a toast follows it. With `requestFixes`, the
 * findings go into the agent's message box as a draft, never sent by themselves.
 */
export async function reviewAgentWithProgress(
  record: AgentRecord,
  requestFixes: boolean,
): Promise<ReviewOutcome | undefined> {
  const toast = await showToast({
    style: Toast.Style.Animated,
    title: `Reviewing ${record.name}…`,
    message: "Read-only, with another login",
  });
  try {
    const result = reviewResultSchema.parse(
      await withCompanion((c) =>
        c.request("agent.review", { project: record.project, name: record.name, wait: true, requestFixes }),
      ),
    );
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
