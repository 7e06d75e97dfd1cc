import { Action, ActionPanel, Clipboard, Icon, LaunchType, List, Toast, launchCommand, showToast } from "@raycast/api";
import { showFailureToast } from "@raycast/utils";
import { describeError, isOffrunError } from "../../core/foundation/errors.js";
import { explainFailure } from "../presenters/failure.js";
import { START_COMPANION_COMMAND, startCompanion } from "./companion.js";

/** Errors as people read them: a short title, the next step, and the details behind "Copy Details". */

export async function showFailure(error: unknown, title?: string): Promise<Toast> {
  const explained = explainFailure(error);
  if (isOffrunError(error, "companion_unavailable")) {
    return showFailureToast(error, {
      title: title ?? explained.title,
      message: explained.nextStep,
      primaryAction: { title: "Start Companion", onAction: (toast) => void startFromToast(toast) },
    });
  }
  return showFailureToast(error, {
    title: title ?? explained.title,
    message: explained.nextStep,
    primaryAction: {
      title: "Copy Details",
      onAction: (toast) => {
        void Clipboard.copy(explained.details);
        void toast.hide();
      },
    },
  });
}

/** Start Companion from a failure toast: the same toast says how it went. */
async function startFromToast(toast: Toast): Promise<void> {
  toast.style = Toast.Style.Animated;
  toast.title = "Starting the companion…";
  toast.message = undefined;
  try {
    const started = await startCompanion();
    toast.style = Toast.Style.Success;
    toast.title = "Companion running";
    toast.message = `${started.message} Try again.`;
  } catch (error) {
    toast.style = Toast.Style.Failure;
    toast.title = "Could not start the companion";
    toast.message = describeError(error);
    // No offrun to start it with: Set Up Offrun installs the one the extension carries.
    toast.primaryAction = isOffrunError(error, "not_installed")
      ? { title: "Set Up Offrun", onAction: () => void openSetUp() }
      : undefined;
  }
}

/** Opens Set Up Offrun (src/commands/set-up-offrun.tsx). */
export function openSetUp(): Promise<void> {
  return launchCommand({ name: "set-up-offrun", type: LaunchType.UserInitiated });
}

/** A toast for work that takes a while; callers update it as the work goes on. */
export function progress(title: string, message?: string): Promise<Toast> {
  return showToast({ style: Toast.Style.Animated, title, message });
}

/** The actions that start the companion, for a view that found it down; `onStarted` reloads the view. */
export function StartCompanionActions({ onStarted }: { onStarted?: () => void }) {
  return (
    <>
      <Action
        title="Start Companion"
        icon={Icon.Play}
        onAction={async () => {
          const toast = await progress("Starting the companion…");
          await startFromToast(toast);
          if (toast.style === Toast.Style.Success) onStarted?.();
        }}
      />
      <Action.CopyToClipboard title="Copy Start Command" content={START_COMPANION_COMMAND} />
    </>
  );
}

/** What a view shows instead of its content when loading failed. */
export function FailureView({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const explained = explainFailure(error);
  const down = isOffrunError(error, "companion_unavailable");
  return (
    <List.EmptyView
      icon={Icon.ExclamationMark}
      title={explained.title}
      description={explained.nextStep}
      actions={
        <ActionPanel>
          {down ? <StartCompanionActions onStarted={onRetry} /> : null}
          <Action.CopyToClipboard title="Copy Details" content={explained.details} />
          {onRetry ? <Action title="Try Again" icon={Icon.ArrowClockwise} onAction={onRetry} /> : null}
        </ActionPanel>
      }
    />
  );
}

export { describeError, isOffrunError };
