import { makeSandbox, type Sandbox } from "../helpers/offrun.js";
import {
  accuracyTable,
  missingSpeechTools,
  runPerfectRecognizer,
  runSpokenTasks,
  saysName,
  setAccuracy,
  SPOKEN_NAMES,
  type Speaker,
  type TaskResult,
} from "../helpers/spoken-tasks.js";

// Real audio through Offrun's dictation: a synthesizer says tasks that name the project's code,
// sox records them with the default recorder's silence detection (from the file, not the
// microphone), the real PocketSphinx 0.8 transcribes them through the speech-tool template, and
// the project vocabulary puts in the code's spellings. Word accuracy is printed before and after
// the vocabulary (also: npm run dictation:accuracy). PocketSphinx's general English model hears
// synthetic speech badly, espeak-ng's worst: only a name it heard can be rewritten.

let box: Sandbox;
beforeAll(async () => {
  box = await makeSandbox("offrun-spoken-");
});
afterAll(async () => box?.cleanup());

test("the vocabulary alone takes every task as said to the code's spellings", async () => {
  const results = await runPerfectRecognizer(box.dir, box.env);
  console.log(`As said, word for word (a perfect recognizer)\n${accuracyTable(results)}`);
  expect(results.map((r) => r.rewritten)).toEqual(
    results.map((r) => r.intended.replace(/(retryBackoffHelper|upload\.test\.js)/g, "`$1`")),
  );
  expect(setAccuracy(results, "before")).toBeLessThan(0.6);
  expect(setAccuracy(results, "after")).toBe(1);
});

function spokenSuite(speaker: Speaker, missing: string[], more: (results: () => TaskResult[]) => void) {
  const title = `${speaker} into PocketSphinx through the dictation pipeline`;
  if (missing.length > 0) {
    describe.skip(`${title} (skipped: ${missing.join(", ")} not installed)`, () => test("runs", () => undefined));
    return;
  }
  describe(title, () => {
    let results: TaskResult[] = [];
    beforeAll(async () => {
      results = await runSpokenTasks(speaker, box.dir, box.env);
      console.log(`${speaker} → PocketSphinx 0.8 (en-us)\n${accuracyTable(results)}`);
    }, 240_000);

    test("recording stops once the speaker stops: the afterthought after the pause is not in it", () => {
      for (const r of results) {
        // sox drops the quiet before the first word and stops 2 s into the 3 s pause, leaving
        // that silence out too: the task is in (most of its length: its own quiet edges go), the
        // afterthought, 3 s after it, is not.
        expect(r.recordedSeconds).toBeGreaterThan(0.7 * r.taskSeconds);
        expect(r.recordedSeconds).toBeLessThan(r.taskSeconds + 2.5);
        expect(r.spokenSeconds - r.recordedSeconds).toBeGreaterThan(4);
      }
    });

    test("the speech tool's template ran PocketSphinx and its words came back without its log", () => {
      for (const r of results) {
        expect(r.heard).not.toBe("");
        expect(r.heard).toMatch(/^[a-z' .]+$/);
      }
    });

    test("where the recognizer said a name's words, the prompt has the code's spelling", () => {
      for (const r of results) {
        for (const name of SPOKEN_NAMES) {
          if (saysName(r.heard, name.letters)) expect(r.rewritten).toContain(`\`${name.spelling}\``);
        }
      }
    });

    test("the vocabulary never makes a task's words less accurate", () => {
      for (const r of results) expect(r.after.errors).toBeLessThanOrEqual(r.before.errors);
    });

    more(() => results);
  });
}

spokenSuite("espeak-ng", await missingSpeechTools(process.env, "espeak-ng"), () => undefined);

spokenSuite("flite", await missingSpeechTools(process.env, "flite"), (results) => {
  test("with Flite's clearer voice some names are heard, and the vocabulary raises the word accuracy", () => {
    expect(results().some((r) => SPOKEN_NAMES.some((name) => saysName(r.heard, name.letters)))).toBe(true);
    expect(setAccuracy(results(), "after")).toBeGreaterThan(setAccuracy(results(), "before"));
  });
});
