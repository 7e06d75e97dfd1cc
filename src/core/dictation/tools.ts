import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { locateBinary } from "../foundation/binaries.js";
import { isOffrunError, OffrunError, type ErrorKind } from "../foundation/errors.js";
import { placeholdersOf, splitTemplate } from "./command-template.js";

/**
 * Which recorder and speech tool dictation runs, and whether they are there. Both are command
 * templates (command-template.ts), so any local tool that reads or writes a WAV file fits:
 * whisper.cpp's `whisper-cli` by default, or `pocketsphinx_continuous -infile {file} -logfn /dev/null`.
 */

export interface DictationSettings {
  /** The recorder's command template; `{file}` is the WAV file it writes. A bare program gets DEFAULT_RECORDER_ARGS. */
  recorder: string;
  /** The speech tool's template: `{file}` the recording, `{model}`, `{language}`. A bare program gets DEFAULT_SPEECH_ARGS. */
  transcriber: string;
  /** The model file for `{model}` (whisper.cpp: a ggml .bin). Needed only when the template names it. */
  model: string;
  /** Spoken language for `{language}` ("en", "de", or "auto"). */
  language: string;
  /** The recorder is stopped after this long at most (its own silence detection usually ends it first). */
  maxSeconds: number;
  /** How long the speech tool may take. */
  transcribeTimeoutMs?: number;
}

/**
 * sox's `rec`: 16 kHz mono 16-bit WAV (what whisper.cpp and PocketSphinx read). `silence 1 0.1 1%`
 * drops the quiet before the first word; `1 2.0 1%` stops after 2 s below 1 %: when the user stops talking.
 */
export const DEFAULT_RECORDER_ARGS = "-q -c 1 -r 16000 -b 16 {file} trim 0 60 silence 1 0.1 1% 1 2.0 1%";
/** whisper.cpp: no timestamps (-nt), no progress (-np); the transcript goes to stdout. */
export const DEFAULT_SPEECH_ARGS = "-m {model} -f {file} -l {language} -nt -np";

export const DEFAULT_DICTATION: DictationSettings = {
  recorder: `rec ${DEFAULT_RECORDER_ARGS}`,
  transcriber: `whisper-cli ${DEFAULT_SPEECH_ARGS}`,
  model: "",
  language: "en",
  maxSeconds: 60,
};

/** A resolved tool: the binary found, and its argument words with the placeholders still in them. */
export interface DictationTool {
  file: string;
  args: string[];
}

export interface DictationTools {
  recorder: DictationTool;
  transcriber: DictationTool;
}

type Role = "recorder" | "speech tool";

/** What to install for the tools people use, by program name; `command` only where one line does it. */
const INSTALL: Record<string, { what: string; darwin?: string; linux?: string }> = {
  rec: { what: "sox, which provides rec", darwin: "brew install sox", linux: "sudo apt-get install sox" },
  sox: { what: "sox", darwin: "brew install sox", linux: "sudo apt-get install sox" },
  "whisper-cli": { what: "whisper.cpp, which provides whisper-cli", darwin: "brew install whisper-cpp" },
  pocketsphinx_continuous: {
    what: "PocketSphinx and its English model",
    linux: "sudo apt-get install pocketsphinx pocketsphinx-en-us",
  },
};

/** The command that installs a program, when one line does it on this platform. */
export function installCommand(program: string, platform: NodeJS.Platform = process.platform): string | undefined {
  const known = INSTALL[path.basename(program)];
  return platform === "darwin" ? known?.darwin : platform === "linux" ? known?.linux : undefined;
}

/** A recorder or speech tool that is not installed, with the command that installs it where one line does. */
export class DictationToolMissing extends OffrunError {
  readonly install: string | undefined;

  constructor(role: Role, program: string, platform: NodeJS.Platform) {
    const known = INSTALL[path.basename(program)];
    const command = installCommand(program, platform);
    const install = `Install ${known?.what ?? program}${command ? `: \`${command}\`` : ""}`;
    super(
      "not_installed",
      `The ${role} '${program}' was not found. ${install}. Or set the ${role} command in the preferences.`,
    );
    this.install = command;
  }
}

/** A template as its program and argument words; a bare program gets the default arguments of its role. */
function templateWords(role: Role, template: string, defaults: string): string[] {
  const words = splitTemplate(template.trim());
  if (words.length === 0)
    throw new OffrunError("invalid_input", `The ${role} command is empty. Set it in the preferences.`);
  if (words.length === 1) return [...words, ...splitTemplate(defaults)];
  if (!placeholdersOf(words).has("file")) {
    throw new OffrunError(
      "invalid_input",
      `The ${role} command "${template}" does not say where the recording goes: name it {file}.`,
    );
  }
  return words;
}

async function resolveTool(
  role: Role,
  template: string,
  defaults: string,
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform,
): Promise<DictationTool> {
  const [program, ...args] = templateWords(role, template, defaults);
  const home = env.HOME || os.homedir();
  const name = program!.startsWith("~/") ? path.join(home, program!.slice(2)) : program!;
  const found = await locateBinary(role === "recorder" ? "dictation-recorder" : "dictation-speech", name, env);
  if (!found) throw new DictationToolMissing(role, name, platform);
  return { file: found, args };
}

/** Finds both tools and the model, before the microphone opens: a missing one fails before the user speaks. */
export async function checkDictation(
  settings: DictationSettings,
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): Promise<DictationTools> {
  const recorder = await resolveTool("recorder", settings.recorder, DEFAULT_RECORDER_ARGS, env, platform);
  const transcriber = await resolveTool("speech tool", settings.transcriber, DEFAULT_SPEECH_ARGS, env, platform);
  if (placeholdersOf(transcriber.args).has("model")) await checkModel(settings.model);
  return { recorder, transcriber };
}

async function checkModel(model: string): Promise<void> {
  if (!model.trim()) {
    throw new OffrunError(
      "invalid_input",
      "No speech model is set. Download a whisper.cpp model (e.g. ggml-base.en.bin) and choose it in the preferences.",
    );
  }
  const isFile = await fs.stat(model).then(
    (s) => s.isFile(),
    () => false,
  );
  if (!isFile) {
    throw new OffrunError(
      "not_found",
      `The speech model ${model} does not exist. Choose a downloaded model file in the preferences.`,
    );
  }
}

/** Whether Dictate can run, for a face that hides or explains it; `install` is a command to copy. */
export type DictationAvailability =
  { ready: true; tools: DictationTools } | { ready: false; kind: ErrorKind; message: string; install?: string };

export async function dictationAvailability(
  settings: DictationSettings,
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): Promise<DictationAvailability> {
  try {
    return { ready: true, tools: await checkDictation(settings, env, platform) };
  } catch (error) {
    if (!isOffrunError(error)) throw error;
    const install = error instanceof DictationToolMissing ? error.install : undefined;
    return { ready: false, kind: error.kind, message: error.message, ...(install ? { install } : {}) };
  }
}
