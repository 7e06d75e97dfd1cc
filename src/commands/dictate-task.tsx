import {
  Action,
  ActionPanel,
  Clipboard,
  Detail,
  Icon,
  LaunchType,
  launchCommand,
  openExtensionPreferences,
  showToast,
  Toast,
} from "@raycast/api";
import { useCachedState } from "@raycast/utils";
import { useEffect, useRef, useState } from "react";
import { dictationAvailability, record, recordingFile, transcribe } from "../core/dictation/index.js";
import { knownProjects } from "../core/foundation/project.js";
import { explainFailure } from "./presenters/failure.js";
import { dictationMarkdown, type DictationScreen } from "./presenters/dictation-screen.js";
import { applyVocabulary, loadProjectVocabulary } from "./presenters/project-vocabulary.js";
import type { StartAgentContext } from "./lib/dictate.js";
import { dictationSettings, faceEnv } from "./lib/preferences.js";

/**
 * Dictate Task: the "hold a key to speak" of Offrun, as a command the user binds to a hotkey. It
 * records until the user stops talking (the recorder's silence detection), transcribes on the
 * device, rewrites the text with the project's spellings and opens Start Agent holding it.
 * Nothing is sent until the user starts the agent there.
 */
export default function DictateTask() {
  // Start Agent's project (its cached state of the same keys): the vocabulary is that project's.
  const [selected] = useCachedState<string>("start-agent:selected", "");
  const [lastProject] = useCachedState<string>("start-agent:project", "");
  const [screen, setScreen] = useState<DictationScreen>({ stage: "checking" });
  const [attempt, setAttempt] = useState(0);
  const stop = useRef<AbortController | undefined>(undefined);

  useEffect(() => {
    const controller = new AbortController();
    const closed = new AbortController();
    stop.current = controller;
    void run(controller.signal, closed.signal, selected || lastProject, setScreen);
    // Closing the command ends the recording and sends nothing.
    return () => {
      closed.abort();
      controller.abort();
    };
  }, [attempt]);

  const again = <Action title="Try Again" icon={Icon.ArrowClockwise} onAction={() => setAttempt((n) => n + 1)} />;
  return (
    <Detail
      isLoading={screen.stage === "checking" || screen.stage === "transcribing" || screen.stage === "heard"}
      markdown={dictationMarkdown(screen)}
      actions={
        <ActionPanel>
          {screen.stage === "recording" ? (
            <Action title="Stop Recording" icon={Icon.Stop} onAction={() => stop.current?.abort()} />
          ) : null}
          {screen.stage === "unavailable" ? (
            <>
              <Action title="Open Extension Preferences" icon={Icon.Gear} onAction={openExtensionPreferences} />
              {screen.install ? <Action.CopyToClipboard title="Copy Install Command" content={screen.install} /> : null}
              {again}
            </>
          ) : null}
          {screen.stage === "nothing-heard" ? again : null}
          {screen.stage === "failed" ? (
            <>
              {again}
              <Action.CopyToClipboard title="Copy Details" content={screen.details} />
              <Action title="Open Extension Preferences" icon={Icon.Gear} onAction={openExtensionPreferences} />
            </>
          ) : null}
        </ActionPanel>
      }
    />
  );
}

async function run(
  stopRecording: AbortSignal,
  closed: AbortSignal,
  cachedProject: string,
  show: (screen: DictationScreen) => void,
): Promise<void> {
  const settings = dictationSettings();
  const env = faceEnv();
  const update = (screen: DictationScreen) => {
    if (!closed.aborted) show(screen);
  };
  // Read while the user speaks: it is ready by the time the words are.
  const vocabulary = (cachedProject ? Promise.resolve(cachedProject) : knownProjects().then((roots) => roots[0]))
    .then((root) => (root ? loadProjectVocabulary(root) : undefined))
    .catch(() => undefined);
  const availability = await dictationAvailability(settings, env);
  if (!availability.ready)
    return update({ stage: "unavailable", message: availability.message, install: availability.install });
  const audio = await recordingFile(env);
  try {
    update({ stage: "recording" });
    const recorded = await record(availability.tools.recorder, settings, audio.file, { env, stopRecording });
    if (closed.aborted) return;
    if (!recorded) return update({ stage: "nothing-heard" });
    update({ stage: "transcribing" });
    const heard = await transcribe(availability.tools.transcriber, settings, audio.file, { env });
    if (closed.aborted) return;
    if (heard === "") return update({ stage: "nothing-heard" });
    const text = applyVocabulary(heard, await vocabulary, false);
    update({ stage: "heard", text });
    await openStartAgent(text);
  } catch (error) {
    const explained = explainFailure(error);
    update({ stage: "failed", title: "Dictation Failed", message: explained.nextStep, details: explained.details });
  } finally {
    await audio.remove();
  }
}

/** Start Agent opens holding the text; if it cannot be opened, the text is not lost. */
async function openStartAgent(prompt: string): Promise<void> {
  const context: StartAgentContext = { prompt };
  try {
    await launchCommand({ name: "start-agent", type: LaunchType.UserInitiated, context });
  } catch (error) {
    await Clipboard.copy(prompt);
    await showToast({
      style: Toast.Style.Failure,
      title: "Could Not Open Start Agent",
      message: `The task is on the clipboard. ${explainFailure(error).nextStep}`,
    });
  }
}
