import * as z from "zod";

/**
 * What speech tools print on stdout, reduced to the words that were said. Each tool has its own
 * habits, and the template preference can name any of them:
 * - whisper.cpp `whisper-cli -nt`: one line per segment, with markers for non-speech
 *   ("[BLANK_AUDIO]", "(music)"); without -nt each line starts "[00:00:00.000 --> 00:00:02.000]".
 * - PocketSphinx 0.8 `pocketsphinx_continuous -infile`: one line per utterance (its log goes to
 *   stderr, or nowhere with `-logfn /dev/null`); older builds put "000000000: " in front.
 * - PocketSphinx 5 `pocketsphinx single`: one JSON object per utterance, the text in "t".
 * Filler words ("<sil>", "++NOISE++", "[noise]") are not words either.
 */

/** PocketSphinx 5's per-utterance line (its src/pocketsphinx/main.c, `format_hyp`). */
const pocketSphinxJson = z.object({ t: z.string() });

const TIMESTAMPS = /^\s*\[\d{2}:\d{2}[:.\d]*\s*-->\s*\d{2}:\d{2}[:.\d]*\]/;
const UTTERANCE_ID = /^\s*\d{6,}:\s/;
const NON_SPEECH =
  /\[[A-Za-z_ ]+\]|\((?:music|silence|inaudible|noise|applause|laughter)\)|<\/?[a-z]+>|\+\+[A-Za-z]+\+\+/gi;

function lineText(line: string): string {
  const trimmed = line.trim();
  if (trimmed.startsWith("{")) {
    try {
      const parsed = pocketSphinxJson.safeParse(JSON.parse(trimmed));
      if (parsed.success) return parsed.data.t;
    } catch {
      // Not JSON after all: a sentence that starts with a brace is still words.
    }
  }
  return trimmed.replace(TIMESTAMPS, "").replace(UTTERANCE_ID, "");
}

export function cleanTranscript(stdout: string): string {
  return stdout
    .split("\n")
    .map((line) => lineText(line).replace(NON_SPEECH, " ").trim())
    .filter(Boolean)
    .join(" ")
    .replace(/\s+/g, " ")
    .trim();
}
