import { Toast } from "@raycast/api";
import { dictate } from "../../core/dictation/index.js";
import { showFailure, progress } from "./failure.js";
import { dictationSettings, faceEnv } from "./preferences.js";

/**
 * The Dictate action: records until 2 s of silence (or Stop Recording), transcribes on the
 * device, and returns the text; a toast shows each stage. Undefined when it failed (the toast
 * says why) or nothing was said.
 */
export async function dictateWithProgress(): Promise<string | undefined> {
  const stop = new AbortController();
  const toast = await progress("Recording…", "Speak now; it stops after 2 s of silence");
  toast.primaryAction = { title: "Stop Recording", onAction: () => stop.abort() };
  try {
    const text = await dictate(dictationSettings(), {
      env: faceEnv(),
      stopRecording: stop.signal,
      onStage: (stage) => {
        if (stage !== "transcribing") return;
        toast.primaryAction = undefined;
        toast.title = "Transcribing…";
        toast.message = "On this Mac, with the model from the preferences";
      },
    });
    if (text === "") {
      toast.style = Toast.Style.Failure;
      toast.title = "Nothing Heard";
      toast.message = "Try again closer to the microphone.";
      return undefined;
    }
    toast.style = Toast.Style.Success;
    toast.title = "Dictated";
    toast.message = `${text.split(/\s+/).length} words added; nothing is sent until you start it`;
    return text;
  } catch (error) {
    await toast.hide();
    await showFailure(error, "Dictation Failed");
    return undefined;
  }
}

/** What Dictate Task hands Start Agent (launchCommand's `context`): the task as heard and rewritten. */
export interface StartAgentContext {
  prompt?: string;
}

/** Appends dictated text to what is already in the field. */
export function appendText(current: string, addition: string): string {
  if (current.trim() === "") return addition;
  return `${current.replace(/\s+$/, "")} ${addition}`;
}
