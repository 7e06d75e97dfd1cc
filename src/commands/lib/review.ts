import { Toast, showToast } from "@raycast/api";
import { OffrunError } from "../../core/foundation/errors.js";
import { shownName, withAgentCompanion, type AgentTarget } from "./companion.js";
import { showFailure } from "./failure.js";

/**
 * Asks the companion to review an agent's changes with the configured reviewer (read-only, in a
 * scratch worktree) and returns once it started: the review runs on in the companion whether or
 * not Raycast stays open, its findings go into the agent's chat, and its notification opens them
 * in Review Changes (src/core/notify/deeplink.ts). With `requestFixes`, the findings also go into
 * the agent's message box as a draft, never sent by themselves. True when the review started.
 */
export async function startReview(target: AgentTarget, requestFixes: boolean): Promise<boolean> {
  const { record } = target;
  const toast = await showToast({ style: Toast.Style.Animated, title: `Starting a Review of ${shownName(target)}…` });
  try {
    const started = await withAgentCompanion(target, (c) =>
      c.call("agent.review", { project: record.project, name: record.name, requestFixes }),
    );
    if (!("reviewer" in started)) {
      throw new OffrunError(
        "unreadable_output",
        "The companion answered agent.review without the reviewer it started.",
      );
    }
    toast.style = Toast.Style.Success;
    toast.title = "Review Started";
    toast.message = [
      `${started.reviewer.harness} · ${started.reviewer.account} reviews ${shownName(target)}; a notification opens the findings`,
      requestFixes ? "fixes go to the message box" : "",
      ...started.warnings,
    ]
      .filter(Boolean)
      .join("; ");
    return true;
  } catch (error) {
    await toast.hide();
    await showFailure(error, "Review Failed");
    return false;
  }
}
