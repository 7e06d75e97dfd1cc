/**
 * What the Dictate Task command shows at each stage, as plain data: the command draws it and
 * tests read it without Raycast.
 */

export type DictationScreen =
  | { stage: "checking" }
  /** The recorder, the speech tool or the model is missing: what to install or set. */
  | { stage: "unavailable"; message: string; install?: string }
  | { stage: "recording" }
  | { stage: "transcribing" }
  | { stage: "nothing-heard" }
  | { stage: "failed"; title: string; message: string; details: string }
  /** Heard and rewritten with the project's spellings; Start Agent opens with it. */
  | { stage: "heard"; text: string };

export function dictationMarkdown(screen: DictationScreen): string {
  switch (screen.stage) {
    case "checking":
      return "";
    case "unavailable":
      return [
        "# Dictation Is Not Set Up",
        screen.message,
        ...(screen.install ? ["Install it with:", "```\n" + screen.install + "\n```"] : []),
        "Dictate Task records with the Recorder and transcribes with the Speech Tool set in the extension's preferences, on this Mac.",
      ].join("\n\n");
    case "recording":
      return [
        "# Listening…",
        "Say the task. Recording stops when you stop talking (2 s of silence), or press Stop Recording.",
        "Nothing is sent: the text opens in Start Agent for you to read and start.",
      ].join("\n\n");
    case "transcribing":
      return "# Transcribing…\n\nOn this Mac, with the speech tool from the preferences.";
    case "nothing-heard":
      return "# Nothing Heard\n\nTry again closer to the microphone.";
    case "failed":
      return `# ${screen.title}\n\n${screen.message}`;
    case "heard":
      return `# Heard\n\n${screen.text
        .split("\n")
        .map((line) => `> ${line}`)
        .join("\n")}\n\nOpening Start Agent…`;
    default: {
      const never: never = screen;
      return never;
    }
  }
}
