import { Action, Clipboard, Icon, openExtensionPreferences, showToast, Toast, type Keyboard } from "@raycast/api";
import { usePromise } from "@raycast/utils";
import { dictationAvailability, type DictationAvailability } from "../../core/dictation/index.js";
import { dictateWithProgress } from "./dictate.js";
import { dictationSettings, faceEnv } from "./preferences.js";

/** Whether the recorder and speech tool from the preferences are there; undefined while it looks. */
export function useDictationAvailability(): DictationAvailability | undefined {
  const { data } = usePromise(() => dictationAvailability(dictationSettings(), faceEnv()), [], {
    onError: () => undefined,
  });
  return data;
}

/** Says what dictation is missing, with the preferences and the install command a press away. */
export async function showDictationSetup(missing: Extract<DictationAvailability, { ready: false }>): Promise<void> {
  const install = missing.install;
  await showToast({
    style: Toast.Style.Failure,
    title: "Dictation Is Not Set Up",
    message: missing.message,
    primaryAction: { title: "Open Extension Preferences", onAction: () => void openExtensionPreferences() },
    secondaryAction: install
      ? { title: "Copy Install Command", onAction: () => void Clipboard.copy(install) }
      : undefined,
  });
}

/**
 * The Dictate action of a form: records, transcribes and hands the text to `onText`. When the
 * recorder or the speech tool is missing it becomes "Show Dictation Setup", which says what to install,
 * instead of a Dictate that fails only once pressed.
 */
export function DictateAction(props: { onText: (text: string) => void; shortcut?: Keyboard.Shortcut }) {
  const availability = useDictationAvailability();
  if (availability && !availability.ready) {
    return (
      <Action
        title="Show Dictation Setup"
        icon={Icon.MicrophoneDisabled}
        shortcut={props.shortcut}
        onAction={() => void showDictationSetup(availability)}
      />
    );
  }
  return (
    <Action
      title="Dictate"
      icon={Icon.Microphone}
      shortcut={props.shortcut}
      onAction={async () => {
        const text = await dictateWithProgress();
        if (text) props.onText(text);
      }}
    />
  );
}
