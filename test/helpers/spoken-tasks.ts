import fs from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import {
  record,
  recordingFile,
  transcribe,
  DEFAULT_DICTATION,
  checkDictation,
} from "../../src/core/dictation/index.js";
import { locateBinary } from "../../src/core/foundation/binaries.js";
import {
  forgetVocabularies,
  loadProjectVocabulary,
  rewriteDictation,
  type Vocabulary,
} from "../../src/core/vocabulary/index.js";
import { makeRepo } from "./offrun.js";

/**
 * Real speech through Offrun's dictation: espeak-ng says a task into a WAV file, sox "records" it
 * with the same silence effect as the default recorder (from the file instead of the microphone),
 * PocketSphinx transcribes it through the speech-tool template, and the project vocabulary puts
 * the code's spellings in. Word accuracy (1 − word error rate) is measured against the task as
 * the user means it, with the code's spellings, before and after the vocabulary.
 * Used by test/e2e/dictation-real.test.ts and `npm run dictation:accuracy`.
 */

/** A task as spoken, and as the prompt should read. */
export interface SpokenTask {
  spoken: string;
  intended: string;
}

export const SPOKEN_TASKS: readonly SpokenTask[] = [
  {
    spoken: "make the retry backoff helper wait longer",
    intended: "make the retryBackoffHelper wait longer",
  },
  {
    spoken: "fix the failing test in upload dot test dot j s",
    intended: "fix the failing test in upload.test.js",
  },
  {
    spoken: "the retry backoff helper should give up after five tries",
    intended: "the retryBackoffHelper should give up after five tries",
  },
  {
    spoken: "add a test for empty files to upload dot test dot j s",
    intended: "add a test for empty files to upload.test.js",
  },
  {
    spoken: "call the retry backoff helper from the upload code",
    intended: "call the retryBackoffHelper from the upload code",
  },
];

/** What the project defines: the names the tasks say. */
export const PROJECT_FILES: Record<string, string> = {
  "README.md": "# uploads\n",
  "src/retry.js": [
    "export async function retryBackoffHelper(task, tries = 5) {",
    "  for (let attempt = 1; ; attempt++) {",
    "    try {",
    "      return await task();",
    "    } catch (error) {",
    "      if (attempt >= tries) throw error;",
    "      await new Promise((resolve) => setTimeout(resolve, 2 ** attempt * 100));",
    "    }",
    "  }",
    "}",
    "",
  ].join("\n"),
  "src/upload.js":
    'import { retryBackoffHelper } from "./retry.js";\n\nexport const upload = (send) => retryBackoffHelper(send);\n',
  "test/upload.test.js":
    'import { upload } from "../src/upload.js";\n\ntest("uploads", async () => upload(async () => 1));\n',
};

/** PocketSphinx 0.8 as a user would set it: it logs to stderr unless told not to. */
export const POCKETSPHINX_TEMPLATE = "pocketsphinx_continuous -infile {file} -logfn /dev/null";

/**
 * The synthesizers that say the tasks. espeak-ng is the one every machine of ours has; Flite,
 * CMU's own, speaks closer to the recordings PocketSphinx (also CMU's) was trained on, so more of
 * what it says is heard and the vocabulary has more to work on.
 */
export const SPEAKERS = {
  "espeak-ng": (text: string, out: string) => ["espeak-ng", ["-v", "en-us", "-w", out, "--", text]] as const,
  flite: (text: string, out: string) => ["flite", ["-voice", "rms", "-t", text, "-o", out]] as const,
} satisfies Record<string, (text: string, out: string) => readonly [string, string[]]>;
export type Speaker = keyof typeof SPEAKERS;

/** The programs a run with `speaker` needs and does not find (the test skips, naming them). */
export async function missingSpeechTools(env: NodeJS.ProcessEnv, speaker: Speaker = "espeak-ng"): Promise<string[]> {
  const names = [speaker, "sox", "pocketsphinx_continuous"];
  const found = await Promise.all(names.map((name) => locateBinary(`spoken-${name}`, name, env)));
  const model = await fs.stat("/usr/share/pocketsphinx/model/en-us/en-us").then(
    () => true,
    () => false,
  );
  return [...names.filter((_, i) => !found[i]), ...(model ? [] : ["pocketsphinx-en-us"])];
}

/**
 * `speaker` says `text` into a WAV file: a second of quiet, the task, three seconds of quiet and
 * then an afterthought that the recording must not contain, because the recorder stops after two
 * seconds of silence, as when the user stops talking.
 */
export async function speak(
  speaker: Speaker,
  text: string,
  file: string,
  env: NodeJS.ProcessEnv,
): Promise<{ taskSeconds: number; seconds: number }> {
  const run = ([command, args]: readonly [string, string[]]) =>
    execa(command, args, { env, extendEnv: false, timeout: 60_000 });
  const task = `${file}.task.wav`;
  const after = `${file}.after.wav`;
  await run(SPEAKERS[speaker](text, task));
  await run(SPEAKERS[speaker](AFTERTHOUGHT, after));
  // Flite writes 16 kHz and espeak-ng 22 kHz: both become what the microphone would give.
  // sox dithers with random noise by default (-D: not), which made PocketSphinx hear other words on each run.
  const format = ["-D", "-c", "1", "-r", "16000", "-b", "16"];
  await run(["sox", [task, ...format, `${task}.pad.wav`, "pad", "1", "3"]]);
  await run(["sox", [after, ...format, `${after}.16k.wav`]]);
  await run(["sox", ["-D", `${task}.pad.wav`, `${after}.16k.wav`, file]]);
  return { taskSeconds: (await wavSeconds(`${task}.pad.wav`)) - 4, seconds: await wavSeconds(file) };
}

/** The length of a 16 kHz mono 16-bit WAV file (or near it, for another format: only its size is read). */
export async function wavSeconds(file: string): Promise<number> {
  const { size } = await fs.stat(file);
  return (size - 44) / (16_000 * 2);
}

/** Said after the pause: it must not reach the prompt. */
export const AFTERTHOUGHT = "and then delete the whole repository";

/** The default recorder's arguments, with the spoken file as its input instead of the microphone (and no dither). */
export function recorderFromFile(input: string): string {
  return `sox -q -D '${input}' -c 1 -r 16000 -b 16 {file} trim 0 60 silence 1 0.1 1% 1 2.0 1%`;
}

/** Word accuracy, 1 − (substitutions + deletions + insertions) / reference words; below 0 when it made words up. */
export function wordAccuracy(reference: string, hypothesis: string): { errors: number; words: number } {
  const ref = words(reference);
  const hyp = words(hypothesis);
  let previous = Array.from({ length: hyp.length + 1 }, (_, j) => j);
  for (let i = 1; i <= ref.length; i++) {
    const current = [i];
    for (let j = 1; j <= hyp.length; j++) {
      const substitution = previous[j - 1]! + (ref[i - 1] === hyp[j - 1] ? 0 : 1);
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution));
    }
    previous = current;
  }
  return { errors: previous[hyp.length]!, words: ref.length };
}

/** Words as a prompt has them: backticks and sentence punctuation off, a file name's dots kept. */
function words(text: string): string[] {
  return text
    .replace(/`/g, "")
    .split(/\s+/)
    .map((word) => word.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ""))
    .filter(Boolean);
}

export interface TaskResult extends SpokenTask {
  /** How long the task alone was said for, the spoken file with its pauses and afterthought, and the recording. */
  taskSeconds: number;
  spokenSeconds: number;
  recordedSeconds: number;
  heard: string;
  rewritten: string;
  before: { errors: number; words: number };
  after: { errors: number; words: number };
}

/** The project the tasks are about, in a git repository of its own, and its vocabulary. */
export async function projectVocabulary(dir: string, env: NodeJS.ProcessEnv, name: string): Promise<Vocabulary> {
  const repo = await makeRepo(path.join(dir, name), env, PROJECT_FILES);
  forgetVocabularies();
  return (await loadProjectVocabulary(repo)).vocabulary;
}

/** Speaks, records, transcribes and rewrites each task in a project of `dir`. */
export async function runSpokenTasks(
  speaker: Speaker,
  dir: string,
  env: NodeJS.ProcessEnv,
  tasks: readonly SpokenTask[] = SPOKEN_TASKS,
): Promise<TaskResult[]> {
  const vocabulary = await projectVocabulary(dir, env, `uploads-${speaker}`);
  const results: TaskResult[] = [];
  for (const [index, task] of tasks.entries()) {
    const spoken = path.join(dir, `${speaker}-${index}.wav`);
    const said = await speak(speaker, task.spoken, spoken, env);
    const settings = { ...DEFAULT_DICTATION, recorder: recorderFromFile(spoken), transcriber: POCKETSPHINX_TEMPLATE };
    const tools = await checkDictation(settings, env);
    const audio = await recordingFile(env);
    try {
      await record(tools.recorder, settings, audio.file, { env });
      const recordedSeconds = await wavSeconds(audio.file);
      const heard = await transcribe(tools.transcriber, settings, audio.file, { env });
      results.push({
        ...measure(task, heard, vocabulary),
        taskSeconds: said.taskSeconds,
        spokenSeconds: said.seconds,
        recordedSeconds,
      });
    } finally {
      await audio.remove();
    }
  }
  return results;
}

function measure(task: SpokenTask, heard: string, vocabulary: Vocabulary) {
  const rewritten = rewriteDictation(heard, vocabulary).text;
  return {
    ...task,
    heard,
    rewritten,
    before: wordAccuracy(task.intended, heard),
    after: wordAccuracy(task.intended, rewritten),
  };
}

/** The vocabulary alone, as if the recognizer had heard every word as said. */
export async function runPerfectRecognizer(dir: string, env: NodeJS.ProcessEnv): Promise<TaskResult[]> {
  const vocabulary = await projectVocabulary(dir, env, "uploads-text");
  return SPOKEN_TASKS.map((task) => ({
    ...measure(task, task.spoken, vocabulary),
    taskSeconds: 0,
    spokenSeconds: 0,
    recordedSeconds: 0,
  }));
}

/** The names the tasks say, as the code spells them and as letters ("dot" as "."). */
export const SPOKEN_NAMES = [
  { spelling: "retryBackoffHelper", letters: "retrybackoffhelper" },
  { spelling: "upload.test.js", letters: "upload.test.js" },
] as const;

/** Whether the recognizer said a name's words in order, however it split them ("retry back off helper"). */
export function saysName(heard: string, letters: string): boolean {
  const words = heard
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .map((word) => (word === "dot" ? "." : word));
  for (let i = 0; i < words.length; i++) {
    let joined = "";
    for (let j = i; j < words.length && joined.length < letters.length; j++) {
      joined += words[j];
      if (joined === letters) return true;
    }
  }
  return false;
}

/** 1 − WER over a whole set. */
export function setAccuracy(results: readonly TaskResult[], which: "before" | "after"): number {
  const errors = results.reduce((sum, r) => sum + r[which].errors, 0);
  const words = results.reduce((sum, r) => sum + r[which].words, 0);
  return 1 - errors / words;
}

/** The table: each task as heard and rewritten, then the accuracy of the set before and after. */
export function accuracyTable(results: readonly TaskResult[]): string {
  const percent = (value: number) => `${(value * 100).toFixed(0)} %`;
  const one = (r: TaskResult, which: "before" | "after") => percent(1 - r[which].errors / r[which].words);
  const lines = results.flatMap((r) => [
    `said:      ${r.spoken}`,
    `heard:     ${r.heard}    (${one(r, "before")})`,
    `rewritten: ${r.rewritten}    (${one(r, "after")})`,
    "",
  ]);
  lines.push(
    `word accuracy on ${results.length} tasks: before the vocabulary ${percent(setAccuracy(results, "before"))}, after ${percent(setAccuracy(results, "after"))}`,
  );
  return lines.join("\n");
}
