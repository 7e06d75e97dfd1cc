import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { locateBinary } from "../foundation/binaries.js";
import { OffrunError } from "../foundation/errors.js";
import { runCommand } from "../foundation/process.js";

/**
 * Dictation on the device: record from the microphone with a recorder (sox's `rec`), then
 * transcribe with a local speech tool (whisper.cpp's `whisper-cli -m MODEL`). Nothing leaves
 * the machine. The text is returned for the user to read and edit; nothing is sent.
 */

export interface DictationSettings {
  /** The recorder: a name looked up on PATH and the usual install folders, or an absolute path. */
  recorder: string;
  /** The speech-to-text tool, likewise. */
  transcriber: string;
  /** The model file the transcriber loads (whisper.cpp: a ggml .bin). */
  model: string;
  /** Spoken language ("en", "de", or "auto"). */
  language: string;
  /** Recording stops after this long at most; it also stops after 2 s of silence. */
  maxSeconds: number;
  /** How long the transcriber may take. */
  transcribeTimeoutMs?: number;
}

export const DEFAULT_DICTATION: DictationSettings = {
  recorder: "rec",
  transcriber: "whisper-cli",
  model: "",
  language: "en",
  maxSeconds: 60,
};

async function resolveTool(role: string, name: string, env: NodeJS.ProcessEnv, hint: string): Promise<string> {
  const found = await locateBinary(`dictation-${role}`, name, env);
  if (!found) throw new OffrunError("not_installed", `The ${role} '${name}' was not found. ${hint}`);
  return found;
}

/** Checks the settings before the microphone opens, so a missing model fails before the user speaks. */
export async function checkDictation(settings: DictationSettings, env: NodeJS.ProcessEnv = process.env) {
  const recorder = await resolveTool(
    "recorder",
    settings.recorder,
    env,
    "Install sox (`brew install sox`, which provides `rec`), or set the recorder's path in the preferences.",
  );
  const transcriber = await resolveTool(
    "transcriber",
    settings.transcriber,
    env,
    "Install whisper.cpp (`brew install whisper-cpp`, which provides `whisper-cli`), or set the speech tool's path in the preferences.",
  );
  if (!settings.model.trim()) {
    throw new OffrunError(
      "invalid_input",
      "No speech model is set. Download a whisper.cpp model (e.g. ggml-base.en.bin) and choose it in the extension's preferences.",
    );
  }
  const modelExists = await fs.stat(settings.model).then(
    (s) => s.isFile(),
    () => false,
  );
  if (!modelExists) {
    throw new OffrunError(
      "not_found",
      `The speech model ${settings.model} does not exist. Choose a downloaded model file in the extension's preferences.`,
    );
  }
  return { recorder, transcriber };
}

/** sox: 16 kHz mono 16-bit WAV (what whisper.cpp reads), stopping after 2 s of silence or maxSeconds. */
export function recordArgs(file: string, maxSeconds: number): string[] {
  return [
    "-q",
    "-c",
    "1",
    "-r",
    "16000",
    "-b",
    "16",
    file,
    "trim",
    "0",
    String(maxSeconds),
    "silence",
    "1",
    "0.1",
    "1%",
    "1",
    "2.0",
    "1%",
  ];
}

/** whisper.cpp: no timestamps, no progress output; the transcript goes to stdout. */
export function transcribeArgs(settings: DictationSettings, file: string): string[] {
  return ["-m", settings.model, "-f", file, "-l", settings.language || "en", "-nt", "-np"];
}

/** whisper.cpp marks non-speech as "[BLANK_AUDIO]", "(music)" and the like: those are not words. */
export function cleanTranscript(stdout: string): string {
  return stdout
    .split("\n")
    .map((line) => line.replace(/\[[A-Z_ ]+\]|\((?:music|silence|inaudible|noise)\)/gi, "").trim())
    .filter(Boolean)
    .join(" ")
    .replace(/\s+/g, " ")
    .trim();
}

export type DictationStage = "recording" | "transcribing";

export interface DictateOptions {
  env?: NodeJS.ProcessEnv;
  /** Stops the recording early (the user pressed Stop): what was recorded is still transcribed. */
  stopRecording?: AbortSignal;
  onStage?: (stage: DictationStage) => void;
}

/** Records, transcribes and returns the text (empty when nothing was said). */
export async function dictate(settings: DictationSettings, options: DictateOptions = {}): Promise<string> {
  const env = options.env ?? process.env;
  const tools = await checkDictation(settings, env);
  const dir = await fs.mkdtemp(path.join(env.TMPDIR || os.tmpdir(), "offrun-dictation-"));
  const audio = path.join(dir, "dictation.wav");
  try {
    options.onStage?.("recording");
    const recorded = await runCommand(
      { file: tools.recorder, args: recordArgs(audio, settings.maxSeconds), env },
      { timeoutMs: (settings.maxSeconds + 10) * 1000, signal: options.stopRecording, maxBuffer: 1_000_000 },
    );
    const audioSize = await fs.stat(audio).then(
      (s) => s.size,
      () => 0,
    );
    if (audioSize === 0) {
      throw new OffrunError(
        "process_failed",
        "Nothing was recorded. Check that Raycast may use the microphone (System Settings › Privacy & Security › Microphone).",
        {
          details: `${tools.recorder} ${recordArgs(audio, settings.maxSeconds).join(" ")}\nexit ${recorded.exitCode}\n${recorded.stderr.slice(-2000)}`,
        },
      );
    }
    options.onStage?.("transcribing");
    const args = transcribeArgs(settings, audio);
    const result = await runCommand(
      { file: tools.transcriber, args, env },
      { timeoutMs: settings.transcribeTimeoutMs ?? 120_000, maxBuffer: 5_000_000 },
    );
    const details = `${tools.transcriber} ${args.join(" ")}\nexit ${result.exitCode}\n${result.stderr.slice(-2000)}`;
    if (result.timedOut) {
      throw new OffrunError("timed_out", "Transcribing took too long. Choose a smaller model in the preferences.", {
        details,
      });
    }
    if (result.exitCode !== 0) {
      throw new OffrunError(
        "process_failed",
        `The speech tool failed (exit ${result.exitCode}). Check the model file in the preferences.`,
        {
          details,
        },
      );
    }
    return cleanTranscript(result.stdout);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}
