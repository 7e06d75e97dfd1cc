import fs from "node:fs/promises";
import path from "node:path";
import { cleanTranscript, dictate, DEFAULT_DICTATION } from "../../src/core/vocabulary/dictation.js";
import { isOffrunError } from "../../src/core/foundation/errors.js";
import { makeSandbox, type Sandbox } from "../helpers/offrun.js";

// Real sox and whisper.cpp are not installed here: small executables stand in for them on a
// temp PATH, logging their argv. The recorder writes the WAV file it was given; the speech tool
// prints what whisper-cli prints with -nt.

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

const settings = () => ({ ...DEFAULT_DICTATION, model: path.join(box.dir, "model.bin") });
const env = () => ({ ...box.env, PATH: `${bin}:/usr/bin:/bin` });

test("records a 16 kHz mono WAV, transcribes it with the model and returns the words", async () => {
  await stub("rec", ['for a in "$@"; do case "$a" in *.wav) printf RIFF > "$a";; esac; done']);
  await stub("whisper-cli", ["echo ' retry the upload'", "echo ' [BLANK_AUDIO]'"]);
  const stages: string[] = [];
  const text = await dictate(settings(), { env: env(), onStage: (s) => stages.push(s) });
  expect(text).toBe("retry the upload");
  expect(stages).toEqual(["recording", "transcribing"]);
  const recArgs = (await fs.readFile(path.join(bin, "rec.argv"), "utf8")).trim();
  expect(recArgs).toMatch(/^-q -c 1 -r 16000 -b 16 \S+dictation\.wav trim 0 60 silence/);
  const whisperArgs = (await fs.readFile(path.join(bin, "whisper-cli.argv"), "utf8")).trim();
  expect(whisperArgs).toMatch(new RegExp(`^-m ${settings().model} -f \\S+dictation\\.wav -l en -nt -np$`));
});

test("a missing speech tool fails before the microphone opens, saying what to install", async () => {
  await stub("rec", ["exit 0"]);
  const error = await dictate(settings(), { env: env() }).catch((e: unknown) => e);
  expect(isOffrunError(error, "not_installed")).toBe(true);
  expect(String((error as Error).message)).toContain("brew install whisper-cpp");
  await expect(fs.stat(path.join(bin, "rec.argv"))).rejects.toThrow();
});

test("no model set is refused with where to set it", async () => {
  await stub("rec", ["exit 0"]);
  await stub("whisper-cli", ["exit 0"]);
  const error = await dictate({ ...settings(), model: "" }, { env: env() }).catch((e: unknown) => e);
  expect(isOffrunError(error, "invalid_input")).toBe(true);
});

test("an empty recording says to check the microphone permission", async () => {
  await stub("rec", ["exit 0"]);
  await stub("whisper-cli", ["echo never"]);
  const error = await dictate(settings(), { env: env() }).catch((e: unknown) => e);
  expect(String((error as Error).message)).toContain("Microphone");
});

test("a failing speech tool reports its exit code and keeps stderr for Copy Details", async () => {
  await stub("rec", ['for a in "$@"; do case "$a" in *.wav) printf RIFF > "$a";; esac; done']);
  await stub("whisper-cli", ["echo 'failed to load model' >&2", "exit 3"]);
  const error = await dictate(settings(), { env: env() }).catch((e: unknown) => e);
  expect(isOffrunError(error, "process_failed")).toBe(true);
  expect((error as { details?: string }).details).toContain("failed to load model");
});

test("whisper's non-speech markers are not words", () => {
  expect(cleanTranscript(" [BLANK_AUDIO]\n (music)\n  hello\n world \n")).toBe("hello world");
});
