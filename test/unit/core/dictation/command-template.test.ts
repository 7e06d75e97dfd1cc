import { fillTemplate, splitTemplate } from "../../../../src/core/dictation/index.js";
import { isOffrunError } from "../../../../src/core/foundation/errors.js";

const values = { file: "/tmp/my recordings/d.wav", model: "/m/ggml base.bin", language: "en" };

test("a template splits on spaces into argv words, with quotes and backslashes as a shell would", () => {
  expect(splitTemplate("whisper-cli  -m {model} -f {file} -nt")).toEqual([
    "whisper-cli",
    "-m",
    "{model}",
    "-f",
    "{file}",
    "-nt",
  ]);
  expect(splitTemplate(`"/Applications/Speech Tool/bin/stt" --in '{file}' a\\ b ""`)).toEqual([
    "/Applications/Speech Tool/bin/stt",
    "--in",
    "{file}",
    "a b",
    "",
  ]);
  expect(splitTemplate(`say "it's \\"quoted\\""`)).toEqual(["say", `it's "quoted"`]);
});

test("nothing in a template reaches a shell: pipes, variables and globs are plain words", () => {
  expect(splitTemplate("rec {file} | tee $HOME/*.wav; rm -rf ~")).toEqual([
    "rec",
    "{file}",
    "|",
    "tee",
    "$HOME/*.wav;",
    "rm",
    "-rf",
    "~",
  ]);
});

test("an unclosed quote is refused with what to fix", () => {
  const error = (() => {
    try {
      return splitTemplate(`rec "{file}`);
    } catch (e) {
      return e;
    }
  })();
  expect(isOffrunError(error, "invalid_input")).toBe(true);
  expect((error as Error).message).toContain("unclosed");
});

test("placeholders are filled inside words, after the split: a path with spaces stays one argument", () => {
  const words = splitTemplate("stt --model={model} -f {file} -l {language} ~/out.txt");
  expect(fillTemplate(words, values, "/home/me")).toEqual([
    "stt",
    "--model=/m/ggml base.bin",
    "-f",
    "/tmp/my recordings/d.wav",
    "-l",
    "en",
    "/home/me/out.txt",
  ]);
});

test("an unknown placeholder is refused rather than passed on as a typo", () => {
  expect(() => fillTemplate(["-f", "{flie}"], values, "/home/me")).toThrow(/Unknown placeholder \{flie\}/);
});
