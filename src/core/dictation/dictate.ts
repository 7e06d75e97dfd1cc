import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { OffrunError } from "../foundation/errors.js";
import { runCommand } from "../foundation/process.js";
import { fillTemplate } from "./command-template.js";
import { checkDictation, type DictationSettings, type DictationTool } from "./tools.js";
import { cleanTranscript } from "./transcript.js";

/**
 * Dictation on the device: record from the microphone until the user stops talking (the
 * recorder's silence detection), then transcribe with a local speech tool. Nothing leaves the
 * machine. The text is returned for the user to read and edit; nothing is sent.
 */

export type DictationStage = "recording" | "transcribing";

export interface DictateOptions {
  env?: NodeJS.ProcessEnv;
  /** Stops the recording early (the user pressed Stop): what was recorded is still transcribed. */
  stopRecording?: AbortSignal;
  onStage?: (stage: DictationStage) => void;
}

function argsFor(tool: DictationTool, settings: DictationSettings, file: string, env: NodeJS.ProcessEnv): string[] {
  const values = { file, model: settings.model, language: settings.language || "en" };
  return fillTemplate(tool.args, values, env.HOME || os.homedir());
}

function describeRun(file: string, args: string[], exitCode: number | undefined, stderr: string): string {
  return `${file} ${args.join(" ")}\nexit ${exitCode}\n${stderr.slice(-2000)}`;
}

/**
 * Runs the recorder into `audio`. False when the user stopped it before it wrote anything; fails
 * when it wrote nothing on its own (no microphone permission, most often).
 */
export async function record(
  tool: DictationTool,
  settings: DictationSettings,
  audio: string,
  options: DictateOptions = {},
): Promise<boolean> {
  const env = options.env ?? process.env;
  const args = argsFor(tool, settings, audio, env);
  const recorded = await runCommand(
    { file: tool.file, args, env },
    { timeoutMs: (settings.maxSeconds + 10) * 1000, signal: options.stopRecording, maxBuffer: 1_000_000 },
  );
  const size = await fs.stat(audio).then(
    (s) => s.size,
    () => 0,
  );
  if (size === 0 && options.stopRecording?.aborted) return false;
  if (size === 0) {
    throw new OffrunError(
      "process_failed",
      "Nothing was recorded. Check that Raycast may use the microphone (System Settings › Privacy & Security › Microphone).",
      { details: describeRun(tool.file, args, recorded.exitCode, recorded.stderr) },
    );
  }
  return true;
}

/** Runs the speech tool on a recording and returns the words it heard ("" for none). */
export async function transcribe(
  tool: DictationTool,
  settings: DictationSettings,
  audio: string,
  options: Pick<DictateOptions, "env"> = {},
): Promise<string> {
  const env = options.env ?? process.env;
  const args = argsFor(tool, settings, audio, env);
  const result = await runCommand(
    { file: tool.file, args, env },
    { timeoutMs: settings.transcribeTimeoutMs ?? 120_000, maxBuffer: 5_000_000 },
  );
  const details = describeRun(tool.file, args, result.exitCode, result.stderr);
  if (result.timedOut) {
    throw new OffrunError("timed_out", "Transcribing took too long. Choose a smaller model in the preferences.", {
      details,
    });
  }
  if (result.exitCode !== 0) {
    throw new OffrunError(
      "process_failed",
      `The speech tool failed (exit ${result.exitCode}). Check its command and model in the preferences.`,
      { details },
    );
  }
  return cleanTranscript(result.stdout);
}

/** A fresh path for one recording, in a folder of its own that `remove` deletes. */
export async function recordingFile(env: NodeJS.ProcessEnv = process.env) {
  const dir = await fs.mkdtemp(path.join(env.TMPDIR || os.tmpdir(), "offrun-dictation-"));
  return { file: path.join(dir, "dictation.wav"), remove: () => fs.rm(dir, { recursive: true, force: true }) };
}

/** Checks the tools, records, transcribes and returns the text (empty when nothing was said). */
export async function dictate(settings: DictationSettings, options: DictateOptions = {}): Promise<string> {
  const env = options.env ?? process.env;
  const tools = await checkDictation(settings, env);
  const audio = await recordingFile(env);
  try {
    options.onStage?.("recording");
    if (!(await record(tools.recorder, settings, audio.file, options))) return "";
    options.onStage?.("transcribing");
    return await transcribe(tools.transcriber, settings, audio.file, options);
  } finally {
    await audio.remove();
  }
}
