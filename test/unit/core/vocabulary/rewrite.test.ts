import { countFileName, countNames, emptyCodeNames } from "../../../../src/core/vocabulary/extract.js";
import { rewriteDictation } from "../../../../src/core/vocabulary/rewrite.js";
import type { UserVocabulary } from "../../../../src/core/vocabulary/user-list.js";
import { buildCodeEntries, createVocabulary, type Vocabulary } from "../../../../src/core/vocabulary/vocabulary.js";
import { keyOfText } from "../../../../src/core/vocabulary/words.js";

// A small project's code, read the way a real scan reads files: names are counted, not listed.
const SOURCE = `
export async function retryBackoffHelper(attempt: number) { return retryBackoff(attempt); }
retryBackoffHelper(1); retryBackoffHelper(2);
const retry_backoff_helper = 1;
function retryBackoff(n) {}
items.forEach((item) => item.toString());
if (isValid(x) && readOnly) {} // an end-to-end check
const MAX_RETRY_COUNT = 3;
class XMLHttpRequest2 {}
const v2Response = base64Encode(userName);
const oneTimeCode = oneTimePasswordReset(getConfig(parseHTTPResponse));
<button class="upload-button">
`;
const FILES = ["src/upload.test.js", "README.md", ".env", "src/retry-backoff.ts", "src/index.ts"];

function vocabularyOf(source: string, files: string[] = [], user: UserVocabulary = []): Vocabulary {
  const names = emptyCodeNames();
  countNames(source, names.identifiers);
  for (const file of files) countFileName(file, names.fileNames);
  return createVocabulary(buildCodeEntries(names), user);
}

const user = (entries: Record<string, string | null>): UserVocabulary =>
  Object.entries(entries).map(([phrase, spelling]) => ({ phrase, key: keyOfText(phrase), spelling }));

describe("rewriteDictation on a table of phrases", () => {
  const vocabulary = vocabularyOf(SOURCE, FILES);

  test.each([
    ["retry backoff helper", "`retryBackoffHelper`"],
    ["Retry backoff helper.", "`retryBackoffHelper`."],
    ["RETRY BACKOFF HELPER", "`retryBackoffHelper`"],
    ["make retry backoff helper wait longer", "make `retryBackoffHelper` wait longer"],
    ["retry backoff", "`retryBackoff`"],
    ["call retry backoff helper, then retry backoff", "call `retryBackoffHelper`, then `retryBackoff`"],
    ["upload dot test dot js", "`upload.test.js`"],
    ["fix upload dot test dot JS, please", "fix `upload.test.js`, please"],
    ["readme dot md", "`README.md`"],
    ["put it in dot env", "put it in `.env`"],
    ["retry backoff dot ts", "`retry-backoff.ts`"],
    ["raise max retry count", "raise `MAX_RETRY_COUNT`"],
    ["v two response", "`v2Response`"],
    ["the v2 response", "the `v2Response`"],
    ["base sixty four encode the user name", "`base64Encode` the `userName`"],
    ["base 64 encode", "`base64Encode`"],
    ["one time password reset", "`oneTimePasswordReset`"],
    ["retry backoff helpers", "`retryBackoff` helpers"],
    ["XML HTTP request two", "`XMLHttpRequest2`"],
    ["parse HTTP response", "`parseHTTPResponse`"],
    ["style the upload button", "style the `upload-button`"],
    ["`retry backoff helper`", "`retryBackoffHelper`"],
    ["retry backoff\nhelper", "`retryBackoff`\nhelper"],
  ])("%j becomes %j", (spoken, written) => {
    expect(rewriteDictation(spoken, vocabulary).text).toBe(written);
  });

  test.each([
    ["retry the upload"],
    ["retry"],
    ["helper"],
    ["do this for each item"],
    ["make sure it is valid"],
    ["convert it to string"],
    ["keep it read only"],
    ["write an end to end test"],
    ["get config"],
    ["retry, backoff helper"],
    ["retry-backoff-helper"],
    ["upload test js"],
    // Digits and everyday words do not make a phrase distinctive: `oneTimeCode` has one such word.
    ["one time code"],
    ["index"],
    [""],
  ])("%j stays as it is", (spoken) => {
    const result = rewriteDictation(spoken, vocabulary);
    expect(result.text).toBe(spoken);
    expect(result.rewrites).toEqual([]);
  });

  test("a phrase that ends inside a word is not rewritten, a shorter one before it is", () => {
    expect(rewriteDictation("retry backoff helper2", vocabulary).text).toBe("`retryBackoff` helper2");
  });

  test("each rewrite says where it was, what was said and what else the code spells that way", () => {
    const text = "Use retry backoff helper here.";
    const [rewrite, ...more] = rewriteDictation(text, vocabulary).rewrites;
    expect(more).toEqual([]);
    expect(rewrite).toEqual({
      start: 4,
      end: 24,
      spoken: "retry backoff helper",
      spelling: "retryBackoffHelper",
      source: "code",
      alternatives: ["retry_backoff_helper"],
    });
    expect(text.slice(rewrite!.start, rewrite!.end)).toBe(rewrite!.spoken);
  });

  test("backticks can be turned off", () => {
    expect(rewriteDictation("retry backoff helper.", vocabulary, { backticks: false }).text).toBe(
      "retryBackoffHelper.",
    );
  });

  test("rewriting already rewritten text changes nothing", () => {
    const once = rewriteDictation("retry backoff helper and upload dot test dot js", vocabulary).text;
    expect(rewriteDictation(once, vocabulary).text).toBe(once);
  });
});

describe("the same words spelled two ways", () => {
  test("the spelling used more often in the code wins", () => {
    const vocabulary = vocabularyOf("retry_backoff_helper retry_backoff_helper retryBackoffHelper");
    expect(rewriteDictation("retry backoff helper", vocabulary).text).toBe("`retry_backoff_helper`");
  });

  test("a tie goes to the spelling that sorts first, whatever order the code came in", () => {
    const one = vocabularyOf("retry_backoff_helper retryBackoffHelper RetryBackoffHelper");
    const other = vocabularyOf("RetryBackoffHelper retryBackoffHelper retry_backoff_helper");
    expect(rewriteDictation("retry backoff helper", one).text).toBe("`RetryBackoffHelper`");
    expect(rewriteDictation("retry backoff helper", other).text).toBe("`RetryBackoffHelper`");
  });
});

describe("the user's list", () => {
  test("a user entry wins over the code, and a one-word user phrase is allowed", () => {
    const vocabulary = vocabularyOf(
      SOURCE,
      FILES,
      user({ "retry backoff helper": "retry_backoff_helper", cube: "kubectl" }),
    );
    expect(rewriteDictation("retry backoff helper via cube", vocabulary).text).toBe(
      "`retry_backoff_helper` via kubectl",
    );
  });

  test("a user spelling that is not a name in the code is inserted exactly as written", () => {
    const vocabulary = vocabularyOf(SOURCE, [], user({ "ray cast": "Raycast", "the helper": "`retryBackoffHelper`" }));
    expect(rewriteDictation("ray cast calls the helper", vocabulary).text).toBe("Raycast calls `retryBackoffHelper`");
  });

  test("a phrase mapped to null is never rewritten", () => {
    const vocabulary = vocabularyOf(SOURCE, [], user({ "user name": null }));
    expect(rewriteDictation("ask for the user name", vocabulary).text).toBe("ask for the user name");
    expect(rewriteDictation("retry backoff helper", vocabulary).text).toBe("`retryBackoffHelper`");
  });
});

describe("while the text is still being typed", () => {
  const vocabulary = vocabularyOf(SOURCE);

  test("a phrase that a longer one starts with waits for the next word", () => {
    expect(rewriteDictation("retry backoff", vocabulary, { partial: true }).text).toBe("retry backoff");
    expect(rewriteDictation("retry backoff hel", vocabulary, { partial: true }).text).toBe("retry backoff hel");
    expect(rewriteDictation("retry backoff helper", vocabulary, { partial: true }).text).toBe("`retryBackoffHelper`");
  });

  test("once a word follows that is not part of a longer phrase, the shorter phrase is rewritten", () => {
    expect(rewriteDictation("retry backoff now and", vocabulary, { partial: true }).text).toBe(
      "`retryBackoff` now and",
    );
    expect(rewriteDictation("retry backoff.", vocabulary, { partial: true }).text).toBe("`retryBackoff`.");
  });
});

describe("words a recognizer splits that the code joins", () => {
  const vocabulary = vocabularyOf(SOURCE, FILES);

  test.each([
    // PocketSphinx 0.8's dictionary has no "backoff": it can only say "back off".
    ["the retry back off helper", "the `retryBackoffHelper`"],
    ["call the retry back off help er now", "call the `retryBackoffHelper` now"],
    // whisper.cpp writes the everyday spelling.
    ["make the retry back-off helper wait", "make the `retryBackoffHelper` wait"],
    ["fix upload dot test dot j s", "fix `upload.test.js`"],
    ["fix up load dot test dot js", "fix `upload.test.js`"],
    ["read me dot md", "`README.md`"],
    ["one time pass word reset", "`oneTimePasswordReset`"],
    ["base sixty four en code", "`base64Encode`"],
    ["retry back off", "`retryBackoff`"],
  ])("%j becomes %j", (spoken, written) => {
    expect(rewriteDictation(spoken, vocabulary).text).toBe(written);
  });

  test.each([
    // A hyphen between two words of a phrase makes a spelling of its own.
    ["retry-backoff-helper"],
    ["retry back offhelper"],
    // A spoken "dot" is a word of the file name, not part of the next one.
    ["upload dotest dot js"],
    ["back off and retry later"],
    ["helper"],
  ])("%j stays as it is", (spoken) => {
    expect(rewriteDictation(spoken, vocabulary).text).toBe(spoken);
  });

  test("the rewrite keeps what was said, joined words and all", () => {
    const [rewrite] = rewriteDictation("use retry back off helper", vocabulary).rewrites;
    expect(rewrite).toMatchObject({
      start: 4,
      end: 25,
      spoken: "retry back off helper",
      spelling: "retryBackoffHelper",
    });
  });

  test("while typing, joined words wait for the word that may make a longer phrase", () => {
    expect(rewriteDictation("retry back off", vocabulary, { partial: true }).text).toBe("retry back off");
    expect(rewriteDictation("retry back off helper", vocabulary, { partial: true }).text).toBe("`retryBackoffHelper`");
  });
});
