import { Action, ActionPanel, Clipboard, Icon, List, Toast, showToast } from "@raycast/api";
import { showFailureToast } from "@raycast/utils";
import { describeError, isOffrunError } from "../../core/foundation/errors.js";
import { explainFailure } from "../../core/views/failure.js";

/** Errors as people read them: a short title, the next step, and the details behind "Copy Details". */

export async function showFailure(error: unknown, title?: string): Promise<Toast> {
  const explained = explainFailure(error);
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

/** A toast for work that takes a while; callers update it as the work goes on. */
export function progress(title: string, message?: string): Promise<Toast> {
  return showToast({ style: Toast.Style.Animated, title, message });
}

/** What a view shows instead of its content when loading failed. */
export function FailureView({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const explained = explainFailure(error);
  return (
    <List.EmptyView
      icon={Icon.ExclamationMark}
      title={explained.title}
      description={explained.nextStep}
      actions={
        <ActionPanel>
          <Action.CopyToClipboard title="Copy Details" content={explained.details} />
          {onRetry ? <Action title="Try Again" icon={Icon.ArrowClockwise} onAction={onRetry} /> : null}
        </ActionPanel>
      }
    />
  );
}

export { describeError, isOffrunError };
