/**
 * `npm run dictation:accuracy`: the word accuracy of dictation on real audio, before and after the
 * project vocabulary. Each synthesizer that is installed says the tasks of
 * test/helpers/spoken-tasks.ts; sox records them with the default recorder's silence detection;
 * PocketSphinx 0.8 transcribes them through the speech-tool template. A perfect recognizer (the
 * words as said) shows what the vocabulary does on its own. Needs espeak-ng, sox, pocketsphinx and
 * pocketsphinx-en-us (Debian), and flite for its rows.
 */
import { makeSandbox } from "../test/helpers/offrun.js";
import {
  accuracyTable,
  missingSpeechTools,
  runPerfectRecognizer,
  runSpokenTasks,
  setAccuracy,
  SPEAKERS,
  type Speaker,
  type TaskResult,
} from "../test/helpers/spoken-tasks.js";

const box = await makeSandbox("offrun-accuracy-");
const percent = (value: number) => `${(value * 100).toFixed(0)} %`.padStart(6);
const summary: string[] = [];
const report = (title: string, results: TaskResult[]) => {
  console.log(`\n== ${title}\n${accuracyTable(results)}`);
  summary.push(
    `${title.padEnd(44)} ${percent(setAccuracy(results, "before"))} ${percent(setAccuracy(results, "after"))}`,
  );
};
try {
  report("as said (a perfect recognizer)", await runPerfectRecognizer(box.dir, box.env));
  for (const speaker of Object.keys(SPEAKERS) as Speaker[]) {
    const missing = await missingSpeechTools(box.env, speaker);
    if (missing.length > 0) {
      summary.push(`${`${speaker} → PocketSphinx 0.8`.padEnd(44)} skipped: ${missing.join(", ")} not installed`);
      continue;
    }
    report(`${speaker} → PocketSphinx 0.8`, await runSpokenTasks(speaker, box.dir, box.env));
  }
  console.log(`\nword accuracy (1 − WER)${" ".repeat(21)} before  after`);
  console.log(summary.join("\n"));
} finally {
  await box.cleanup();
}
