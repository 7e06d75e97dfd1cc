import { countNames, fileNameKey, identifierKey } from "../../../../src/core/vocabulary/extract.js";
import { rewriteDictation } from "../../../../src/core/vocabulary/rewrite.js";
import { buildCodeEntries, createVocabulary } from "../../../../src/core/vocabulary/vocabulary.js";
import { isDistinctivePhrase, keyOfText, splitIdentifier } from "../../../../src/core/vocabulary/words.js";

describe("splitting code names into spoken words", () => {
  test.each([
    ["retryBackoffHelper", "retry backoff helper"],
    ["RetryBackoffHelper", "retry backoff helper"],
    ["retry_backoff_helper", "retry backoff helper"],
    ["MAX_RETRY_COUNT", "max retry count"],
    ["retry-backoff-helper", "retry backoff helper"],
    ["XMLHttpRequest", "xml http request"],
    ["parseHTTPResponse", "parse http response"],
    ["base64Encode", "base 64 encode"],
    ["v2Response", "v 2 response"],
    ["oneTimeCode", "1 time code"],
    ["sixtyFourBits", "64 bits"],
    ["__dirname_helper__", "dirname helper"],
    ["$refCount", "ref count"],
  ])("%s is spoken %j", (name, key) => {
    expect(identifierKey(name)).toBe(key);
  });

  test("a one-word name has no phrase", () => {
    expect(identifierKey("upload")).toBeUndefined();
    expect(identifierKey("_private")).toBeUndefined();
    expect(splitIdentifier("ID")).toEqual(["ID"]);
  });

  test.each([
    ["upload.test.js", "upload dot test dot js"],
    [".env", "dot env"],
    ["README.md", "readme dot md"],
    ["retry-backoff.spec.ts", "retry backoff dot spec dot ts"],
  ])("the file %s is spoken %j", (name, key) => {
    expect(fileNameKey(name)).toBe(key);
  });

  test("dictated text gets the same key however numbers were said", () => {
    expect(keyOfText("Base sixty-four encode")).toBe("base 64 encode");
    expect(keyOfText("base 64 encode")).toBe("base 64 encode");
    expect(keyOfText("base64 encode")).toBe("base 64 encode");
    expect(keyOfText("twenty one")).toBe("21");
    expect(keyOfText("twenty, one")).toBe("20 1");
  });

  test("a phrase of everyday words is not distinctive; a file name with a dot always is", () => {
    expect(isDistinctivePhrase("for each")).toBe(false);
    expect(isDistinctivePhrase("is valid")).toBe(false);
    expect(isDistinctivePhrase("get config")).toBe(false);
    expect(isDistinctivePhrase("end to end")).toBe(false);
    expect(isDistinctivePhrase("user name")).toBe(true);
    expect(isDistinctivePhrase("retry backoff helper")).toBe(true);
    expect(isDistinctivePhrase("dot env")).toBe(true);
  });
});

describe("reading names out of code", () => {
  test("it counts multi-part names and skips one-word names, numbers, subtraction and noise", () => {
    const counts = new Map<string, number>();
    countNames(`const retryCount = a-1; retryCount++; x = y; ${"aB".repeat(50)}; .upload-button {}`, counts);
    expect(Object.fromEntries(counts)).toEqual({ retryCount: 2, "upload-button": 1 });
  });
});

describe("hostile input", () => {
  const names = { identifiers: new Map([["retryBackoffHelper", 1]]), fileNames: new Map([["upload.test.js", 1]]) };
  const vocabulary = createVocabulary(buildCodeEntries(names));

  // How long it takes is bench/vocabulary.ts's to say; this checks that the time grows with the
  // line, not with its square: ten times the words may take 10x (30x allows for a loaded machine),
  // where a quadratic rewrite takes 100x.
  test("a 1.8 MB single line of 300,000 words is rewritten in time linear in its length", () => {
    const timed = (line: string) => {
      const started = performance.now();
      const result = rewriteDictation(line, vocabulary);
      return { ms: performance.now() - started, result };
    };
    // The best of a few runs each: a pause of the machine (GC, another process) lands in one run, not
    // in all. Ten times the words in linear time is about 10 times as long; quadratic, about 100.
    const tenth = Math.min(...[1, 2, 3].map(() => timed("retry backoff helper and more words ".repeat(5_000)).ms));
    const runs = [1, 2].map(() => timed("retry backoff helper and more words ".repeat(50_000)));
    const { result } = runs[0]!;
    const ms = Math.min(...runs.map((run) => run.ms));
    expect(ms / tenth).toBeLessThan(30);
    expect(result.rewrites).toHaveLength(50_000);
    expect(result.text.startsWith("`retryBackoffHelper` and more words `retryBackoffHelper`")).toBe(true);
  });

  test("a huge word without spaces is left alone", () => {
    const blob = "retrybackoffhelper".repeat(100_000);
    expect(rewriteDictation(blob, vocabulary).text).toBe(blob);
  });

  test("emoji between the words end the phrase, around it they stay untouched", () => {
    expect(rewriteDictation("🚀 retry backoff helper 🎉", vocabulary).text).toBe("🚀 `retryBackoffHelper` 🎉");
    expect(rewriteDictation("retry 🚀 backoff helper", vocabulary).text).toBe("retry 🚀 backoff helper");
    expect(rewriteDictation("👨‍👩‍👧 upload dot test dot js", vocabulary).text).toBe("👨‍👩‍👧 `upload.test.js`");
  });

  test("right-to-left text is kept exactly, with phrases beside it rewritten", () => {
    const text = "\u05EA\u05E7\u05DF \u05D0\u05EA retry backoff helper \u0627\u0644\u0622\u0646";
    expect(rewriteDictation(text, vocabulary).text).toBe(
      "\u05EA\u05E7\u05DF \u05D0\u05EA `retryBackoffHelper` \u0627\u0644\u0622\u0646",
    );
    const marked = "\u202Eretry backoff helper\u202C";
    expect(rewriteDictation(marked, vocabulary).text).toBe("\u202E`retryBackoffHelper`\u202C");
  });

  test("control characters, lone surrogates and letters that change length when lowercased do no harm", () => {
    const text = "\u0000\uD800 İstanbul retry\u0000backoff helper \uDC00 RETRY BACKOFF HELPER";
    expect(rewriteDictation(text, vocabulary).text).toBe(
      "\u0000\uD800 İstanbul retry\u0000backoff helper \uDC00 `retryBackoffHelper`",
    );
  });
});
