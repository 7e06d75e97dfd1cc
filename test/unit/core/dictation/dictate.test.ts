import fs from "node:fs/promises";
import path from "node:path";
import {
  checkDictation,
  cleanTranscript,
  dictate,
  dictationAvailability,
  DEFAULT_DICTATION,
} from "../../../../src/core/dictation/index.js";
import { isOffrunError } from "../../../../src/core/foundation/errors.js";
import { makeSandbox, type Sandbox } from "../../../helpers/offrun.js";

// Small executables stand in for the recorder and the speech tool on a temp PATH, logging their
// argv (test/e2e/dictation-real.test.ts runs the real sox and PocketSphinx). The recorder writes
// the WAV file it was given; the speech tool prints what whisper-cli prints with -nt.

let box: Sandbox;
let bin: string;
beforeEach(async () => {
  box = await makeSandbox("offrun-dictation-");
  bin = path.join(box.dir, "bin");
  await fs.mkdir(bin);
  await fs.writeFile(path.join(box.dir, "model.bin"), "model");
});
afterEach(async () => box.cleanup());

async function stub(name: string, lines: string[]) {
  await fs.writeFile(
    path.join(bin, name),
    ["#!/bin/sh", `printf '%s\\n' "$*" >> '${bin}/${name}.argv'`, ...lines, ""].join("\n"),
    { mode: 0o755 },
  );
}
const writesWav = 'for a in "$@"; do case "$a" in *.wav) printf RIFF > "$a";; esac; done';
const argvOf = async (name: string) => (await fs.readFile(path.join(bin, `${name}.argv`), "utf8")).trim();

const settings = () => ({ ...DEFAULT_DICTATION, model: path.join(box.dir, "model.bin") });
const env = () => ({ ...box.env, PATH: `${bin}:/usr/bin:/bin` });
// A program no install folder has, for the tests of a missing tool.
const MISSING = "offrun-test-no-such-tool";

test("records a 16 kHz mono WAV until silence, transcribes it with the model and returns the words", async () => {
  await stub("rec", [writesWav]);
  await stub("whisper-cli", ["echo ' retry the upload'", "echo ' [BLANK_AUDIO]'"]);
  const stages: string[] = [];
  const text = await dictate(settings(), { env: env(), onStage: (s) => stages.push(s) });
  expect(text).toBe("retry the upload");
  expect(stages).toEqual(["recording", "transcribing"]);
  expect(await argvOf("rec")).toMatch(/^-q -c 1 -r 16000 -b 16 \S+dictation\.wav trim 0 60 silence 1 0.1 1% 1 2.0 1%$/);
  expect(await argvOf("whisper-cli")).toMatch(
    new RegExp(`^-m ${settings().model} -f \\S+dictation\\.wav -l en -nt -np$`),
  );
});

test("the speech tool is a template: PocketSphinx gets the recording where {file} is, and no model", async () => {
  await stub("rec", [writesWav]);
  await stub("pocketsphinx_continuous", [
    "echo 'INFO: cmd_ln.c(702): Parsing command line:' >&2",
    "echo 'fix the upload'",
  ]);
  const text = await dictate(
    { ...settings(), model: "", transcriber: "pocketsphinx_continuous -infile {file} -logfn /dev/null" },
    { env: env() },
  );
  expect(text).toBe("fix the upload");
  expect(await argvOf("pocketsphinx_continuous")).toMatch(/^-infile \S+dictation\.wav -logfn \/dev\/null$/);
});

test("a bare program name, as the old preferences held, gets the default arguments", async () => {
  await stub("rec", [writesWav]);
  await stub("whisper-cli", ["echo hello"]);
  const tools = await checkDictation({ ...settings(), recorder: "rec", transcriber: `${bin}/whisper-cli` }, env());
  expect(tools.recorder).toEqual({ file: `${bin}/rec`, args: expect.arrayContaining(["{file}", "silence"]) });
  expect(tools.transcriber.args).toEqual(["-m", "{model}", "-f", "{file}", "-l", "{language}", "-nt", "-np"]);
});

test("a template that does not name {file} is refused with what to add", async () => {
  await stub("rec", [writesWav]);
  const error = await checkDictation({ ...settings(), transcriber: "rec -q out.wav" }, env()).catch((e: unknown) => e);
  expect(isOffrunError(error, "invalid_input")).toBe(true);
  expect((error as Error).message).toContain("{file}");
});

test("a missing speech tool fails before the microphone opens, saying what to install", async () => {
  await stub("rec", ["exit 0"]);
  const missing = { ...settings(), transcriber: `${MISSING} -f {file}` };
  const error = await dictate(missing, { env: env() }).catch((e: unknown) => e);
  expect(isOffrunError(error, "not_installed")).toBe(true);
  expect((error as Error).message).toBe(
    `The speech tool '${MISSING}' was not found. Install ${MISSING}. Or set the speech tool command in the preferences.`,
  );
  await expect(fs.stat(path.join(bin, "rec.argv"))).rejects.toThrow();
});

test("availability names the install command of the tool that is missing, for this platform", async () => {
  const noPath = { ...box.env, PATH: bin, HOME: box.home };
  const whisper = { ...settings(), recorder: `${MISSING}-rec {file}`, transcriber: "whisper-cli -f {file}" };
  const recorderMissing = await dictationAvailability(whisper, noPath, "darwin");
  expect(recorderMissing).toMatchObject({ ready: false, kind: "not_installed" });
  expect(recorderMissing).not.toHaveProperty("install");

  await stub("rec", ["exit 0"]);
  // whisper-cli may be installed on a developer's Mac: this asks for one that is nowhere.
  const named = await dictationAvailability(
    { ...whisper, recorder: "rec {file}", transcriber: `/nonexistent/whisper-cli -f {file}` },
    noPath,
    "darwin",
  );
  expect(named).toEqual({
    ready: false,
    kind: "not_installed",
    message:
      "The speech tool '/nonexistent/whisper-cli' was not found. Install whisper.cpp, which provides whisper-cli: `brew install whisper-cpp`. Or set the speech tool command in the preferences.",
    install: "brew install whisper-cpp",
  });

  const sphinx = {
    ...whisper,
    recorder: "/nonexistent/rec {file}",
    transcriber: "pocketsphinx_continuous -infile {file}",
  };
  expect(await dictationAvailability(sphinx, noPath, "linux")).toMatchObject({ install: "sudo apt-get install sox" });
});

test("no model set is refused with where to set it, when the template uses {model}", async () => {
  await stub("rec", ["exit 0"]);
  await stub("whisper-cli", ["exit 0"]);
  const error = await dictate({ ...settings(), model: "" }, { env: env() }).catch((e: unknown) => e);
  expect(isOffrunError(error, "invalid_input")).toBe(true);
  expect((await dictationAvailability({ ...settings(), model: "" }, env())).ready).toBe(false);
});

test("an empty recording says to check the microphone permission", async () => {
  await stub("rec", ["exit 0"]);
  await stub("whisper-cli", ["echo never"]);
  const error = await dictate(settings(), { env: env() }).catch((e: unknown) => e);
  expect(String((error as Error).message)).toContain("Microphone");
});

test("a failing speech tool reports its exit code and keeps stderr for Copy Details", async () => {
  await stub("rec", [writesWav]);
  await stub("whisper-cli", ["echo 'failed to load model' >&2", "exit 3"]);
  const error = await dictate(settings(), { env: env() }).catch((e: unknown) => e);
  expect(isOffrunError(error, "process_failed")).toBe(true);
  expect((error as { details?: string }).details).toContain("failed to load model");
});

test("whisper's non-speech markers and timestamps, and PocketSphinx's ids, fillers and JSON, are not words", () => {
  expect(cleanTranscript(" [BLANK_AUDIO]\n (music)\n  hello\n world \n")).toBe("hello world");
  expect(cleanTranscript("[00:00:00.000 --> 00:00:02.140]   fix the test\n")).toBe("fix the test");
  expect(cleanTranscript("000000000: retry <sil> the upload ++NOISE++\n")).toBe("retry the upload");
  expect(cleanTranscript('{"b":0.000,"d":1.230,"p":0.9,"t":"call the helper","w":[]}\n')).toBe("call the helper");
  expect(cleanTranscript("{braces} stay words\n")).toBe("{braces} stay words");
});
